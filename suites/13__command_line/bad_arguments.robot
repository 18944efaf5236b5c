# robocop: off=line-too-long
*** Settings ***
Documentation       A flag with a missing or unusable value: llama-server exits 1 before it loads anything, and its
...                 stderr names the flag, says what is wrong with the value, shows that flag's usage and points to
...                 `-h`.
Resource            ../../resources/command_line.resource
Test Timeout        2 minutes
Test Template       Bad Argument Should Be Rejected
Test Tags           command-line    errors    needs:managed


*** Test Cases ***                                  FLAG                     VALUE      MESSAGE                                                                                 USAGE
Text As A Number Is Rejected                        --ctx-size               abc        error while handling argument "--ctx-size": stoi                                       -c,${SPACE * 4}--ctx-size N
Missing Value Is Rejected                           --parallel               ${NONE}    error while handling argument "--parallel": expected value for argument                -np,${SPACE * 3}--parallel N
Unknown Choice Is Rejected                          --flash-attn             maybe      error while handling argument "--flash-attn": error: unknown value for --flash-attn: 'maybe'    -fa,${SPACE * 3}--flash-attn [on|off|auto]
Zero Idle Seconds Are Rejected                      --sleep-idle-seconds     0          error while handling argument "--sleep-idle-seconds": invalid value: cannot be 0 or less than -1    --sleep-idle-seconds SECONDS
Idle Seconds Below Minus One Are Rejected           --sleep-idle-seconds     -2         error while handling argument "--sleep-idle-seconds": invalid value: cannot be 0 or less than -1    --sleep-idle-seconds SECONDS

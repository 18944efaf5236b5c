*** Settings ***
Documentation       The log as a reviewer sees it, in headless Chromium: a failing test shows its message and the
...                 exchange it names, collapsed exchange blocks expand, the slot timeline and the load charts are
...                 rendered images inside the window. The log is the one of `tests/log_sample`, run here in a
...                 subprocess against a real llama-server (its deliberate failure stays in its own output folder,
...                 results/harness/log_sample). Screenshots go to results/screenshots/. Without Debian's
...                 `chromium` and `chromium-driver` every test is skipped with the install command.
Library             OperatingSystem
Library             Process
Library             String
Library             HeadlessChromium.py
Library             DeadlineLibrary
Library             SeleniumLibrary    run_on_failure=Capture Page Screenshot
...                     screenshot_root_directory=${SCREENSHOTS}
Suite Setup         Run The Sample And Open Its Log
Suite Teardown      Close The Browser
Test Setup          Reload The Sample Log
Test Timeout        2 minutes
Test Tags           harness


*** Variables ***
${ROOT}                 ${{ pathlib.Path(r"${CURDIR}").parents[1] }}
${SCREENSHOTS}          ${ROOT}/results/screenshots
${SAMPLE_OUTPUT}        ${ROOT}/results/harness/log_sample
${CHROMIUM}             /usr/bin/chromium
${CHROMEDRIVER}         /usr/bin/chromedriver
${INSTALL}              apt-get install -y chromium chromium-driver
${FAILING}              Completion Expected To Be Refused Fails On Its Exchange
${BATCH}                Two Users On Two Slots Log Their Slot Timeline
${LOAD}                 Short Load Run Logs Its Charts
# What a reviewer's window shows: the charts (760 and 800 px wide) must fit it without scrolling sideways.
${WINDOW}               1280,900
${PROFILE}              ${EMPTY}


*** Test Cases ***
Failing Test Shows Its Message And The Exchange It Judged
    ${message} =    Test Message Should Match    ${FAILING}
    ...    POST /completion: status was 200, expected 400* [[]exchange #*[]]
    ${label} =    Exchange Label In    ${message}
    ${block} =    Exchange Block    ${FAILING}    ${label}
    Block Should Expand When Its Summary Is Clicked    ${block}
    Element Should Contain    ${block}    Once upon a time
    Scroll To The Middle Of The Window    ${block}/summary
    Capture Page Screenshot    failing-test-exchange.png

Collapsed Exchange Blocks Expand
    ${message} =    Test Message Should Match    ${FAILING}    *[[]exchange #*[]]
    ${label} =    Exchange Label In    ${message}
    ${block} =    Exchange Block    ${FAILING}    ${label}
    Block Should Expand When Its Summary Is Clicked    ${block}
    VAR    ${headers}    ${block}//details[summary[.="response headers"]]
    Block Should Expand When Its Summary Is Clicked    ${headers}
    Element Should Contain    ${headers}    application/json
    Scroll To The Middle Of The Window    ${headers}
    Capture Page Screenshot    exchange-response-headers.png

Slot Timeline Chart Is Rendered Inside The Window
    Expand Every Keyword Of    ${BATCH}
    ${test} =    Test Element    ${BATCH}
    VAR    ${chart}    ${test}//*[local-name()="svg"]
    Image Should Be Rendered Inside The Window    ${chart}
    Element Should Contain    ${chart}    slot timeline
    Capture Page Screenshot    slot-timeline.png

Load Charts Are Rendered Inside The Window
    Expand Every Keyword Of    ${LOAD}
    ${test} =    Test Element    ${LOAD}
    VAR    ${charts}    ${test}//img[starts-with(@src, "data:image/png")]
    ${count} =    Get Element Count    ${charts}
    Should Be True    ${count} >= 1    the load run's block holds no chart
    Image Should Be Rendered Inside The Window    (${charts})[1]
    Capture Page Screenshot    load-chart-1.png
    Image Should Be Rendered Inside The Window    (${charts})[last()]
    Capture Page Screenshot    load-chart-last.png


*** Keywords ***
Run The Sample And Open Its Log
    [Documentation]    Skips every test when chromium or chromedriver is missing; else runs the sample suite
    ...    (one test fails on purpose) and opens its log.html in headless Chromium.
    [Timeout]    4 minutes
    Remove Directory    ${SCREENSHOTS}    recursive=${True}    # no screenshot of an earlier run is left to mislead
    Browser Should Be Installed
    Run The Sample Suite
    Open Headless Chromium
    ${wait} =    Deadline    15 s
    Set Selenium Timeout    ${wait}

Browser Should Be Installed
    [Documentation]    A skip with the install command when Debian's chromium or chromedriver is missing.
    ${browser_found} =    Run Keyword And Return Status    File Should Exist    ${CHROMIUM}
    ${driver_found} =    Run Keyword And Return Status    File Should Exist    ${CHROMEDRIVER}
    Skip If    not ($browser_found and $driver_found)
    ...    the log check needs ${CHROMIUM} and ${CHROMEDRIVER}: ${INSTALL} (Debian's packages)

Run The Sample Suite
    [Documentation]    Runs tests/log_sample with the project's robot.args into its own output folder and checks
    ...    that exactly its deliberate failure failed.
    ${python} =    Evaluate    sys.executable    modules=sys
    Remove Directory    ${SAMPLE_OUTPUT}    recursive=${True}
    ${wait} =    Deadline    3 minutes
    ${result} =    Run Process    ${python}    -m    robot    -A    robot.args    --outputdir    ${SAMPLE_OUTPUT}
    ...    --console    dotted    --report    NONE    --xunit    NONE    tests/log_sample/log_sample.robot
    ...    cwd=${ROOT}    stdout=${SAMPLE_OUTPUT}.stdout    stderr=STDOUT    timeout=${wait}
    Should Be Equal As Integers    ${result.rc}    1
    ...    the sample suite should fail exactly its one deliberate test; it said:\n${result.stdout}
    ...    values=${False}
    File Should Exist    ${SAMPLE_OUTPUT}/log.html

Open Headless Chromium
    [Documentation]    Debian's chromium through Debian's chromedriver, in a new empty profile, with nothing that
    ...    reaches the network: without these flags it waits on refused connections.
    ${new_profile} =    Evaluate    tempfile.mkdtemp(prefix="llamatest-chromium-")    modules=tempfile
    VAR    ${PROFILE}    ${new_profile}    scope=SUITE    # robocop: off=no-suite-variable
    ${options} =    Headless Chromium Options    ${CHROMIUM}    ${PROFILE}    ${WINDOW}
    Open Browser    file://${SAMPLE_OUTPUT}/log.html    chrome    options=${options}
    ...    service=executable_path="${CHROMEDRIVER}"

Close The Browser
    [Documentation]    Closes the browser (and its chromedriver) and removes its temporary profile.
    Close All Browsers
    IF    $PROFILE    Remove Directory    ${PROFILE}    recursive=${True}

Reload The Sample Log
    [Documentation]    Every test starts from the log as it opens: the failed test expanded down to its failure,
    ...    the rest collapsed. Clicks wait until it is drawn: a click while it grows lands elsewhere.
    Go To    file://${SAMPLE_OUTPUT}/log.html
    ${test} =    Test Element    ${FAILING}
    Wait Until Element Is Visible    ${test}//div[@class="keyword"]//table[contains(@class, "fail-message")]

Test Element
    [Documentation]    The XPath (a locator of its own) of the log's element of the sample test called `name`.
    [Arguments]    ${name}
    RETURN    //div[@class="test"][div/div[@class="name" and .="${name}"]]

Exchange Block
    [Documentation]    The XPath of the collapsible exchange block whose summary ends with `label`, in test `name`.
    [Arguments]    ${name}    ${label}
    ${test} =    Test Element    ${name}
    RETURN    ${test}//details[summary[contains(., "[${label}]")]]

Test Message Should Match
    [Documentation]    Expands the test (a failed test opens by itself), checks its Message row against
    ...    `pattern` (glob) and returns the message.
    [Arguments]    ${name}    ${pattern}
    ${test} =    Test Element    ${name}
    VAR    ${row}    ${test}/div[contains(@class, "children")]/table[@class="metadata"]//td[@class="message"]
    Wait Until Element Is Visible    ${row}
    ${message} =    Get Text    ${row}
    Should Match    ${message}    ${pattern}
    RETURN    ${message}

Exchange Label In
    [Documentation]    The `exchange #N` a failure message names.
    [Arguments]    ${message}
    ${labels} =    Get Regexp Matches    ${message}    \\[(exchange #\\d+)\\]    1
    Length Should Be    ${labels}    1    the message should name one exchange: ${message}
    RETURN    ${labels}[0]

Block Should Expand When Its Summary Is Clicked
    [Documentation]    A collapsed `<details>` block: shown by its summary line, opened by a click on it, then
    ...    showing what follows the summary.
    [Arguments]    ${block}
    Wait Until Element Is Visible    ${block}/summary
    Element Attribute Value Should Be    ${block}    open    ${None}
    Scroll Element Into View    ${block}/summary
    Click Element    ${block}/summary
    Element Attribute Value Should Be    ${block}    open    true
    Element Should Be Visible    ${block}/summary/following-sibling::*[1]

Scroll To The Middle Of The Window
    [Documentation]    Scrolls the page so that the element is in the middle of the window; returns the element.
    [Arguments]    ${locator}
    ${element} =    Get WebElement    ${locator}
    Execute Javascript    arguments[0].scrollIntoView({block: "center", inline: "nearest"});    ARGUMENTS    ${element}
    RETURN    ${element}

Expand Every Keyword Of
    [Documentation]    What a reviewer does on a passed test: opens it with its "Expand all" button.
    [Arguments]    ${name}
    ${test} =    Test Element    ${name}
    Mouse Over    ${test}/div[contains(@class, "element-header")]
    Click Element    ${test}/div[contains(@class, "element-header")]//a[@class="expand"]
    Wait Until Element Is Visible    ${test}//div[@class="keyword"]

Image Should Be Rendered Inside The Window
    [Documentation]    Scrolled to the middle of the window, the image (an `<img>` or `<svg>`) has a non-zero size,
    ...    lies inside the window and, for a PNG, has been decoded.
    [Arguments]    ${image}
    Wait Until Element Is Visible    ${image}
    ${element} =    Scroll To The Middle Of The Window    ${image}
    ${box} =    Execute Javascript    return Object.assign(arguments[0].getBoundingClientRect().toJSON(),
    ...    {inner: [window.innerWidth, window.innerHeight], decoded: arguments[0].naturalWidth});
    ...    ARGUMENTS    ${element}
    Should Be True    $box["width"] > 0 and $box["height"] > 0    not rendered: ${box}
    Should Be True    $box["left"] >= 0 and $box["right"] <= $box["inner"][0]    wider than the window: ${box}
    Should Be True    $box["top"] >= 0 and $box["bottom"] <= $box["inner"][1]    taller than the window: ${box}
    Should Be True    $box["decoded"] is None or $box["decoded"] > 0    the PNG could not be decoded: ${box}

*** Settings ***
Documentation       A message's text reaches the prompt the chat template renders (`/apply-template`) exactly as
...                 sent: text that looks like Jinja (an expression, a statement, a comment, a raw block) is data,
...                 never evaluated as part of the template; HTML is not escaped; quotes and backslashes are not
...                 re-escaped; combining marks, emoji sequences, right-to-left and astral text, zero-width,
...                 bidirectional and control characters pass through the template engine byte for byte. The texts
...                 have no whitespace at their ends, which some templates trim, so these hold for any chat template.
Resource            ../../resources/chat.resource
Suite Setup         Start Server For Suite    tiny-1-slot
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Message Text Should Reach The Prompt Unchanged
Test Tags           chat    unicode


*** Test Cases ***                                  TEXT
Jinja Expression Is Not Evaluated                   say {{ messages }} and {{ 7 * 7 }}
Jinja Statement Is Not Evaluated                    {% for m in messages %}again{% endfor %}
Jinja Comment Is Kept                               keep {# this #} comment
Jinja Raw Block Markers Are Kept                    {% raw %}{{ x }}{% endraw %}
Html Is Not Escaped                                 <script>alert("x")</script> &amp; <b>
Quotes And Backslashes Are Not Re Escaped           say "hi" it's \\n not \\u0041 nor \\\\
Combining Accents Pass Through                      cafe\u0301 nai\u0308ve
Emoji Sequence Passes Through                       \U0001F468\u200D\U0001F469\u200D\U0001F467 and \U0001F1EB\U0001F1F7
Right To Left Text Passes Through                   مرحبا بالعالم שלום
Astral Characters Pass Through                      \U00020000\U0002A6D6\U0001F999
Zero Width And Bom Characters Pass Through          a\u200Bb\u200Dc\uFEFFd
Bidirectional Override Passes Through               abc\u202Eevil\u202Cdef
Control Characters Pass Through                     a\x01b\x1bc\x7fd
Inner Blank Lines Pass Through                      first\n\n\nlast


*** Keywords ***
Message Text Should Reach The Prompt Unchanged
    [Documentation]    Renders one user message of `text` with the server's chat template and checks that the
    ...    prompt holds `text` exactly.
    [Arguments]    ${text}
    ${prompt} =    Rendered Chat Prompt    ${text}
    Should Contain    ${prompt}    ${text}

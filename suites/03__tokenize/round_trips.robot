*** Settings ***
Documentation       Text of every kind survives `/tokenize` then `/detokenize` unchanged (after the space the model's
...                 tokenizer adds before the text, read from its file), and `with_pieces` gives the same ids: spaces,
...                 tabs and line ends, punctuation, combining marks, emoji sequences, scripts from Arabic to Thai,
...                 characters outside the Basic Multilingual Plane, zero-width and bidirectional controls. A
...                 byte-level or byte-fallback vocabulary loses nothing, so these hold for any chat model whose file
...                 is readable here.
Resource            ../../resources/tokenize.resource
Resource            ../../resources/props.resource
Suite Setup         Start Server For Suite    tiny-1-slot
Suite Teardown      Stop Servers For Suite
Test Timeout        2 minutes
Test Template       Text Should Survive A Round Trip
Test Tags           tokenize    unicode    needs:model-file


*** Test Cases ***                                  TEXT
Ascii Sentence                                      The quick brown fox jumps over the lazy dog.
Leading Spaces                                      ${SPACE * 3}indented
Trailing Spaces                                     ends with spaces${SPACE * 3}
Run Of Spaces Inside                                a${SPACE * 5}b
Tabs                                                a\tb\t\tc
Line Feeds                                          line one\nline two\n\n
Carriage Returns And Line Feeds                     one\r\ntwo\r\n
Ascii Punctuation                                   !"$%&'()*+,-./:;<=>?@[\\]^_`{|}~
Long Numbers                                        3.14159265358979 and 1234567890123
Precomposed Accents                                 café naïve façade
Combining Accents                                   cafe\u0301 nai\u0308ve
Emoji                                               \U0001F999 llama \U0001F680
Emoji Joined By Zero Width Joiners                  \U0001F468\u200D\U0001F469\u200D\U0001F467
Flag Of Regional Indicators                         \U0001F1EB\U0001F1F7
Emoji With A Skin Tone                              \U0001F44B\U0001F3FD
Japanese                                            日本語のテキスト
Chinese With Full Width Punctuation                 汉字和标点，。！
Korean                                              한국어 텍스트
Arabic                                              مرحبا بالعالم
Hebrew                                              שלום עולם
Devanagari                                          नमस्ते दुनिया
Thai                                                สวัสดีชาวโลก
Cyrillic                                            Привет, мир
Greek                                               Γειά σου Κόσμε
Mathematical Symbols                                ∀x ∈ ℝ: x² ≥ 0
Zero Width Characters                               a\u200Bb\u200Cc\u200Dd
Byte Order Mark Inside The Text                     a\uFEFFb
Replacement Character                               x\uFFFDy
Private Use Characters                              \uE000\uF8FF
Characters Beyond The Basic Plane                   \U00020000\U0002A6D6
Ascii Control Characters                            a\x01b\x1bc\x7fd
Bidirectional Override                              abc \u202Eevil\u202C def
Long Repetition                                     ${{ "ab" * 500 }}


*** Keywords ***
Text Should Survive A Round Trip
    [Documentation]    Tokenizes `text`, detokenizes the ids back to the model's space prefix and `text`, and checks
    ...    that the tokens with pieces carry the same ids.
    [Arguments]    ${text}
    ${prefix} =    Space Prefix Of The Model
    ${ids} =    Round Trip Should Restore    ${text}    ${prefix}
    ${tokens} =    Tokenize    ${text}    with_pieces=${True}
    Token Ids Should Be    ${tokens}    ${ids}

"""Options for Debian's chromium under SeleniumLibrary, as root and with no network but loopback.

Without the networking flags, chromium waits on connections this machine refuses (component updates,
sync, QUIC); without ``--no-sandbox`` it does not start as root. A new empty profile per run keeps
a previous run's state out.
"""

from __future__ import annotations

from selenium.webdriver import ChromeOptions

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")


def headless_chromium_options(binary: str, profile: str, window: str) -> ChromeOptions:
    """Options for the chromium at ``binary`` with the empty profile folder ``profile`` and a window of
    ``window`` (``"1280,900"``)."""
    options = ChromeOptions()
    options.binary_location = binary
    for flag in (*FLAGS, f"--window-size={window}", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    return options

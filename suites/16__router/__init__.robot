*** Settings ***
Documentation       The router and downloads. The cases of router_downloads.robot that wait out the downloader (its
...                 hard-coded retries, a hub that never answers) are begun by the run's first set-up
...                 (`suites/__init__.robot`), on servers and a hub fixture of their own, so that they go on beside
...                 the run's other suites; this set-up begins them when the run starts at this folder, and the
...                 suite file when it runs alone. Their tests take the outcome.
Resource            ../../resources/early_cases.resource
Suite Setup         Begin The Early Case    downloader
Suite Teardown      End The Early Case    downloader

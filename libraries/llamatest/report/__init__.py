"""What a run leaves behind, above every other layer: bug reports, the load run's log block, the keyword docs,
where the time went, and the generated sections of the docs."""

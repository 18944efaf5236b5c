"""What a load run's records mean (room 3 of ``load``): metrics, validity, the summary, comparisons and trials,
sweeps and SLOs, answers under load, soak and leaks, and the verdicts the keywords give."""

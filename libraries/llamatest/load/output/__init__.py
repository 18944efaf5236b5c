"""What a load run leaves on disk (room 4 of ``load``): summary files, charts, the history of earlier runs and
baselines, plain-text views for the command line."""

"""What a load run sends (room 1 of ``load``): routes, prompts, and workloads beyond one prompt per request
(conversations, a shared prefix, a route mix, replayed traces), each making its bodies through the one protocol
``bodies.RequestBodies``."""

"""The review UI: annotate (blind, keyboard-first), fix gold, follow the queues,
adjudicate disagreements and release Gold. Every store call goes through
``reviewer.review``; these widgets only show and collect."""

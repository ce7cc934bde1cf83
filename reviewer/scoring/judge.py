"""LLM-as-a-judge for toolJSON answers (paper 000, Appendix C.3, Figure 24).

The prompt is the paper's, word for word; the caller supplies the function
that talks to a model, so this module needs no network and no client.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

# Figure 24 of paper 000, lines 5-16, exactly (line breaks as in the figure).
JUDGE_PROMPT = (
    "You are given two inputs, one is the ground truth and one is predicted answer.\n"
    'These are two strings. Your task is to output either "True" or "False" indicating whether the\n'
    "predicted answer matches the ground truth.\n"
    "Please follow the instructions listed below:\n"
    "1. As these are free text outputs, the match does not need to be exact.\n"
    "2. Please allow for paraphrases or verbalizations.\n"
    '3. Please output only "True" or "False".\n'
    "\n"
    "ground_truth:{gold_answer}\n"
    "predicted_answer:{predicted_answer}\n"
    "\n"
    "Does the predicted_answer match the ground_truth?:"
)

# The same text as the benchmark's code builds it: a triple-quoted string inside
# a function, so every line after the first carries 4 spaces of indentation and
# the last ends with ": ". Offered for exact replays of the original runs.
JUDGE_PROMPT_AS_CODED = "\n".join(
    (line if n == 0 or not line else "    " + line) for n, line in enumerate(JUDGE_PROMPT.split("\n"))
) + " "

PromptVariant = Literal["paper", "code"]
ChatFn = Callable[[list[dict]], str | None]


def judge_prompt(gold, prediction, variant: PromptVariant = "paper") -> str:
    """The judge prompt filled in (values inserted with ``str.format``, as the original does).

    ``variant="paper"`` is Figure 24 exactly; ``"code"`` is the repository's
    indented string (see JUDGE_PROMPT_AS_CODED).
    """
    template = JUDGE_PROMPT if variant == "paper" else JUDGE_PROMPT_AS_CODED
    return template.format(gold_answer=gold, predicted_answer=prediction)


def judge_messages(question: str | None, gold, prediction, variant: PromptVariant = "paper") -> list[dict]:
    """The chat messages sent to the judge: one user turn holding the prompt.

    The question is not part of Figure 24's prompt; it is accepted so callers
    can log it beside the verdict, and deliberately left out of the messages.
    """
    return [{"role": "user", "content": judge_prompt(gold, prediction, variant)}]


def parse_verdict(reply: str | None) -> bool | None:
    """True iff the reply starts with "true" after stripping and lower-casing (as the original).

    None when there was no reply at all (the call failed), so a failed judge
    call is not counted as a "False" verdict.
    """
    if reply is None:
        return None
    return reply.strip().lower().startswith("true")


def judge(client_callable: ChatFn, question: str | None, gold, prediction,
          variant: PromptVariant = "paper") -> bool | None:
    """Ask the judge whether ``prediction`` matches ``gold``.

    ``client_callable(messages) -> reply text`` sends the chat messages to a
    model (the reruns module supplies an OpenAI-compatible one). Exceptions
    it raises propagate: retry policy belongs to the caller.
    """
    return parse_verdict(client_callable(judge_messages(question, gold, prediction, variant)))

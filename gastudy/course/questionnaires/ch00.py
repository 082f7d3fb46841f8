"""Chapter 00's questionnaire: how a chapter is built, the check cells, the sources and the map."""

from __future__ import annotations

from gastudy.course.i18n import t
from gastudy.course.questionnaire import Question


def questions() -> list[Question]:
    """The questions of chapter 00, in the course language."""
    return [
        Question(t("What does a check cell do when the claim it tests no longer holds?"),
                 t("It stops the notebook with a ✗ line that names the claim. A broken claim "
                   "fails loudly, so the course never goes on teaching something that is no longer "
                   "true."),
                 choices=(t("it prints a warning and the notebook goes on"),
                          t("it stops the notebook and marks the claim with ✗"),
                          t("it quietly re-runs the lab with its default settings"),
                          t("it skips the claim and marks it as optional")),
                 right=1),
        Question(t("The course is built on five source documents. How many distinct texts do they "
                   "hold?"),
                 t("Three: the Hugging Face guide to gradient accumulation (three copies: Arabic "
                   "twice, Spanish once), the Hugging Face guide to gradient checkpointing, and "
                   "the Turkish practitioner's guide."),
                 number=3),
        Question(t("The section map covers GA-1 … GA-6, CK-1 … CK-4 and MB-1 … MB-12. How many "
                   "sections is that in all?"),
                 t("6 + 4 + 12 = 22 sections, and the map links every one of them to the chapter "
                   "that teaches it."),
                 number=22),
        Question(t("Which chapter (give its number) teaches activation checkpointing, sections "
                   "CK-1 … CK-4?"),
                 t("Chapter 08, checkpointing: saved bytes, every_n_layers and offload. The "
                   "section map and gastudy.course.notebook_for give the same answer."),
                 number=8),
        Question(t("An epoch of 50 samples, microbatches of m = 4, A = 4 microbatches per update. "
                   "How many updates does it make?"),
                 t("⌈50 / (m · A)⌉ = ⌈50 / 16⌉ = 4: three full updates of 16 samples and a short "
                   "last one of 2 (50 samples are 13 microbatches, the last one of 2 samples)."),
                 number=4),
        Question(t("In the course's notation, what does N count?"),
                 t("The supervised items of a group, all replicas together: the denominator its "
                   "summed loss is divided by, once. The data set's size, the samples of an update "
                   "(B) and the tokens of a row (T) have symbols or words of their own."),
                 choices=(t("the samples in the data set"),
                          t("the samples of one update"),
                          t("the supervised items of a group: the denominator"),
                          t("the tokens of one row")),
                 right=2),
        Question(t("Why is the word \"step\" left out of the course's glossary?"),
                 t("Because it can mean a microbatch, a backward pass or an optimizer update. The "
                   "course says which one it means, and chapter 01 shows how the ambiguity changes "
                   "the look of loss curves."),
                 choices=(t("it is a PyTorch method name, not a concept"),
                          t("every framework uses it for the optimizer update, so it needs no "
                            "definition"),
                          t("it can mean a microbatch, a backward pass or an optimizer update")),
                 right=2),
        Question(t("What happens to the Hugging Face cells (Trainer, Accelerate) when the optional "
                   "hf extra is not installed?"),
                 t("They print a note saying so and are skipped; the rest of the chapter still "
                   "runs. The extra only adds the comparison with the real Hugging Face APIs."),
                 choices=(t("they print a note and are skipped"),
                          t("the notebook stops with an ImportError"),
                          t("they download a pretrained model instead"),
                          t("they fall back to gastudy and report the numbers as if they ran")),
                 right=0),
        Question(t("A check cell makes a claim about one worked example, such as the 512/1536 "
                   "tokens. How does it stay true wherever you left the lab's sliders?"),
                 t("It recomputes that example itself with lab.compute(...) and its fixed inputs, "
                   "so what the panel currently shows does not change the check."),
                 choices=(t("it resets every slider to its default value first"),
                          t("it reads lab.result, which always holds the default setting"),
                          t("it recomputes the example with lab.compute(...)")),
                 right=2),
        Question(t("Why does the course measure and check each claim instead of simply stating "
                   "it?"),
                 t("An almost-right accumulation loop still trains: its loss falls and nothing "
                   "crashes, while the error quietly changes the experiment. Only a measurement, "
                   "turned into a check, shows the difference.")),
    ]

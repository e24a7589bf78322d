"""SPIQA paper QA: ask questions about a paper's figures and tables and see the figure that answers.

Pipeline (one direction): PDF -> `Paper` (`spiqa_demo.extraction`) -> index (`retrieval`) ->
answer (`spiqa_demo.qa`) -> scores (`spiqa_demo.evaluation.metrics`). The CLI (`spiqa_demo.cli`) and the
Gradio UI (`spiqa_demo.ui`) are thin layers over these.
"""

__version__ = "0.1.0"

"""The placement report (``compute-guard report``): the pack's own verdicts on a stack read from
``pulumi preview --json`` or ``pulumi stack export``, and a picture of where its workloads land.

    input (inputs.py) -> the pack's policies, in process (model.py) -> formats (render.py, templates/)
"""

from .inputs import Input, Unreadable, read, stack_config
from .model import Report, build
from .render import FORMATS, render

__all__ = ["FORMATS", "Input", "Report", "Unreadable", "build", "read", "render", "stack_config"]

"""``flashio report``: what FlashAttention gains on each GPU and why, as Markdown, HTML, CSV and JSON.

Without a GPU the report holds the model's predictions for every GPU of the database, the three-factor
explanation, the IO experiments and a correctness smoke run of the kernels in Triton's interpreter; with
one it adds a benchmark sweep (``flashio.bench``) set against the predictions. Modules:

- ``builder``: the sections and the files (``build_report``);
- ``predictions``, ``explanation``, ``io_experiments``, ``measured``, ``smoke``: the numbers of each section;
- ``plots``: the matplotlib figures; ``document``: Markdown and self-contained HTML rendering;
- ``cli``: the ``report`` sub-command.
"""

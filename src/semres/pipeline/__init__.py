"""Running the chapters and building the book: the chapter registry, the runner that executes a
chapter and keeps its records, the book build that runs them in lanes and calls Jupyter Book,
and the command line. What the pages say is the report layer's."""

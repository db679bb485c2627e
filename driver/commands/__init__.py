"""One module per command of ./conformance: list, run, mutants, test, bench. Each has a
`command(args)` for the command line (cli.py) and, where other commands reuse it, a function
taking the command's options value."""

# pytest's root: its presence puts the repository root on sys.path, so the tests import the
# `reports` and `driver` packages as the driver does, from wherever pytest is started.

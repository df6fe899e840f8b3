"""The `tessera` command (also `python -m tessera`).

Subcommands are added by the areas that own them (tuning: tune, replay, pick-best, log-summary).
"""
import argparse
import sys


def _parser():
    from importlib import metadata
    try:
        version = metadata.version("tessera")
    except metadata.PackageNotFoundError:  # running from the source tree (scripts/setup.sh)
        version = "source tree"
    p = argparse.ArgumentParser(
        prog="tessera",
        description="tessera: a TVM-style tensor compiler for NPUs.")
    p.add_argument("--version", action="version", version=f"tessera {version}")
    p.add_subparsers(dest="command", metavar="COMMAND")
    return p


def main(argv=None):
    p = _parser()
    args = p.parse_args(argv)
    if args.command is None:
        p.print_help()
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())

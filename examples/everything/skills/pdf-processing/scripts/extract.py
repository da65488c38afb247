"""Prints the text of a PDF (a fixture of the skills extension)."""
import sys

print(f"text of {sys.argv[1] if len(sys.argv) > 1 else 'nothing'}")

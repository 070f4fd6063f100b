import sys

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while the modules load: the CLI's own exit, not a traceback
    sys.stderr.write("msgraphlint: interrupted\n")
    sys.exit(130)

main()

"""``python -m fivedice.i18n extract|update|compile|init CODE|stats`` (see :mod:`fivedice.i18n.catalogs`)."""

import sys

from fivedice.i18n.catalogs import main

if __name__ == "__main__":
    sys.exit(main())

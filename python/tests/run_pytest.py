"""Runs one Python test file with pytest for ctest (python/CMakeLists.txt).

Exit 77 (ctest: skipped) with a message when pytest (Debian: python3-pytest) is not installed,
unless PCGLAB_REQUIRE_EVERY_TEST is set: then that is a failure.
"""

import os
import sys

try:
    import pytest
except ImportError:
    message = "pytest is not installed (Debian 12: python3-pytest; scripts/install-deps.sh installs it)"
    if os.environ.get("PCGLAB_REQUIRE_EVERY_TEST"):
        print(f"FAILED: {message}, and PCGLAB_REQUIRE_EVERY_TEST is set")
        sys.exit(1)
    print(f"skipped: {message}")
    sys.exit(77)

# No cache folder (two suites may run at once), quiet, every skip's reason shown.
sys.exit(pytest.main(["-q", "-rs", "-p", "no:cacheprovider", *sys.argv[1:]]))

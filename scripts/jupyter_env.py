"""The project-local Jupyter environment for the Python scripts that drive a kernel, as scripts/common.sh
exports it for the shell scripts: the kernelspec from build/jupyter (D2L_TEST_JUPYTER_PATH overrides it),
runtime files in build/jupyter/runtime. Import it before jupyter_client."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
os.environ["JUPYTER_PATH"] = os.environ.get("D2L_TEST_JUPYTER_PATH", str(ROOT / "build" / "jupyter"))
os.environ["JUPYTER_RUNTIME_DIR"] = str(ROOT / "build" / "jupyter" / "runtime")
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")

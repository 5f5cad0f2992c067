"""Creates or updates the virtual environment the Python tests run in.

Usage: make_venv.py VENV REQUIREMENTS

Idempotent: the environment is created once, and pip runs again only when
REQUIREMENTS (or the Python that made the environment) changes.
"""

import hashlib
import pathlib
import subprocess
import sys


def main() -> int:
    venv, requirements = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    python = venv / "bin" / "python"
    stamp = venv / "kosan-requirements.sha256"
    wanted = hashlib.sha256(requirements.read_bytes() + sys.version.encode()).hexdigest()
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        print(f"{venv}: up to date")
        return 0
    if not python.exists():
        print(f"{venv}: creating")
        done = subprocess.run([sys.executable, "-m", "venv", str(venv)])
        if done.returncode != 0:
            print(f"error: cannot create a virtual environment with {sys.executable} "
                  "(on Debian: apt-get install python3-venv)", file=sys.stderr)
            return 1
    print(f"{venv}: installing {requirements}")
    done = subprocess.run([str(python), "-m", "pip", "install", "--quiet",
                           "--disable-pip-version-check", "-r", str(requirements)])
    if done.returncode != 0:
        print(f"error: pip could not install {requirements} into {venv}", file=sys.stderr)
        return 1
    stamp.write_text(wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main())

# Metadata lives in setup.cfg; this file lets pip build offline with the
# installed setuptools (see setup.cfg).
from setuptools import setup

setup()

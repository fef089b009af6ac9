"""Only a workaround; the project is configured in pyproject.toml.

setuptools' editable wheel installs data files only when the distribution answers `has_data()`,
a method it does not have (it has `has_data_files()`), so `pip install -e .` left out the man
page that `git hippo --help` needs (git runs `man git-hippo`). This answers for it.
"""

from setuptools import setup
from setuptools.dist import Distribution


class _Distribution(Distribution):
    def has_data(self) -> bool:
        return bool(self.has_data_files())


setup(distclass=_Distribution)

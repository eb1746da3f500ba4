"""Install ``rules/`` as ``jaxlint.rules`` and ``fixtures/`` as ``jaxlint.fixtures``.

Both stay at the top of the repository (the design card) but must not land in
site-packages as top-level packages named ``rules`` or ``fixtures``.
"""

from setuptools import find_namespace_packages, find_packages, setup


def _under(directory: str, prefix: str, namespace: bool = False) -> list[str]:
    finder = find_namespace_packages if namespace else find_packages
    return [prefix] + [f"{prefix}.{p}" for p in finder(directory, exclude=["__pycache__*", "*.__pycache__*"])]


setup(
    packages=_under("jaxlint", "jaxlint")
    + _under("rules", "jaxlint.rules")
    + _under("fixtures", "jaxlint.fixtures", namespace=True),
    package_dir={"jaxlint": "jaxlint", "jaxlint.rules": "rules", "jaxlint.fixtures": "fixtures"},
)

"""The ComputeCluster component served as a component provider (package ``compute``), so programs in
every Pulumi language use the same typed ComputeCluster that compute-guard checks.

Pulumi runs a component provider written in Python from a directory holding a ``PulumiPlugin.yaml``
(``runtime: python`` and the virtual environment to run in) and a ``__main__.py`` that calls
:func:`serve`; the provider's schema is inferred from the component's annotations by
``pulumi.provider.experimental``. Programs use the directory with a ``packages:`` entry (YAML) or
``pulumi package add <directory>``. The repository's is ``provider/``; an installed distribution
writes one bound to its own environment with ``compute-guard provider <directory>``
(:func:`write_plugin`).
"""

import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import pulumi
from pulumi.provider.experimental.analyzer import PropertyDefinition
from pulumi.provider.experimental.component import ComponentProvider

from compute_guard import component
from compute_guard.component import PACKAGE, ComputeClusterInputs, _json_form

MAIN = '''"""The ComputeCluster component as a component provider, for programs in any Pulumi language."""

from compute_guard.component.provider import serve

serve()
'''


def version() -> str:
    """The provider's version: the installed distribution's."""
    try:
        return metadata.version("compute-guard")
    except metadata.PackageNotFoundError:  # a copy of the sources that was never installed
        return "0.0.0"


class ComputeClusterProvider(ComponentProvider):
    """The SDK's component provider for the ComputeCluster, which also takes values that are secret or not
    known yet, wherever they are.

    The SDK (pulumi 3.260) maps the wire's inputs to the component's Python names, property by property,
    and a secret or unknown value arrives as an Output: it checks an integer with ``int()``, which raises
    on an Output and failed the whole component (a YAML program's ``memoryBytes: {fn::secret: ...}``), and
    maps an object given as an Output (a secret profile, an unknown one in a preview) as an empty object,
    then fails on its required fields. Here an Output is passed on as it came, at any property, so the pack
    reads the secret or unknown it is (and says what it could not check).
    """

    def map_input_properties(self, inputs: Any, properties: dict[str, PropertyDefinition],
                             mapping: dict[str, str], component_name: str, property_path: str) -> Any:
        if isinstance(inputs, dict):
            # a property with no type, reference or items is one the SDK passes on unchanged
            properties = {name: PropertyDefinition(optional=prop.optional)
                          if isinstance(inputs.get(name), pulumi.Output) else prop
                          for name, prop in properties.items()}
        return super().map_input_properties(inputs, properties, mapping, component_name, property_path)


class ComputeCluster(component.ComputeCluster):
    """The component as the provider serves it (its class name is its type token's): it takes the inputs of
    :class:`ComputeClusterInputs` (the id as ``clusterId``, the one spelling every language's SDK sends) and
    registers the seed's form, with ``id``, as the Python component does."""

    def __init__(self, resource_name: str, args: ComputeClusterInputs,
                 opts: pulumi.ResourceOptions | None = None) -> None:
        props = _json_form(args, ComputeClusterInputs)
        if "clusterId" in props:
            props = {"id": props.pop("clusterId"), **props}
        pulumi.ComponentResource.__init__(self, component.TYPE_TOKEN, resource_name, props, opts)
        self.cluster_id = pulumi.Output.from_input(props.get("id"))
        self.register_outputs(props)


def serve() -> None:
    """Serve the component to the Pulumi engine (the arguments are the engine's, in ``sys.argv``): what the
    SDK's ``component_provider_host`` does, with :class:`ComputeClusterProvider`."""
    from pulumi.provider import main

    main(ComputeClusterProvider([ComputeCluster], PACKAGE, version=version()), sys.argv[1:])


class NotInVirtualenv(Exception):
    """Pulumi runs a Python plugin only in a virtual environment."""


def write_plugin(directory: Path) -> Path:
    """Write a plugin directory that serves this installation's component with this environment's Python.

    Pulumi runs Python plugins in a virtual environment only (its language host refuses the ambient
    Python), so this one must be running in one.
    """
    if sys.prefix == sys.base_prefix:
        raise NotInVirtualenv(f"{sys.prefix} is not a virtual environment: install compute-guard in one "
                              "(Pulumi runs a Python plugin in a virtual environment only)")
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "PulumiPlugin.yaml").write_text(
        f"# The ComputeCluster component provider of compute-guard {version()}, run with the Python of the\n"
        f"# virtual environment it is installed in (written by `compute-guard provider`).\n"
        f"runtime:\n  name: python\n  options:\n    virtualenv: {sys.prefix}\n")
    (directory / "__main__.py").write_text(MAIN)
    return directory

"""Stands in for torch, accelerate, peft and transformers, which lm_eval imports at module level but the
dummy model never uses (they are not installable here). Every attribute is a permissive dummy."""
import importlib.abc, importlib.machinery, sys, types

class _Dummy(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _make(name)
    def __call__(cls, *a, **k):
        if len(a) == 1 and callable(a[0]) and not k:
            return a[0]
        return cls
    def __getitem__(cls, k):
        return cls
    def __or__(cls, o):
        return cls
    __ror__ = __or__
    def __bool__(cls):
        return False
    def __iter__(cls):
        return iter(())

def _make(name):
    return _Dummy(name, (), {})

class _Module(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name == "__version__":
            return "2.0.0"
        return _make(name)

STUBBED = ("torch", "torchvision", "transformers", "spacy")

class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None
    def create_module(self, spec):
        m = _Module(spec.name)
        m.__path__ = []
        m.__version__ = "2.0.0"
        return m
    def exec_module(self, module):
        pass

sys.meta_path.insert(0, _Finder())

"""A small Python module exercising the definitions the extractor knows."""

import functools  # @ref import functools

MAX_GREETINGS = 3  # @def constant MAX_GREETINGS
default_name = "world"  # @def variable default_name


class Greeter:  # @def class Greeter
    """Greets people by name."""

    greeting = "Hello"  # @def field Greeter.greeting

    def __init__(self, name):  # @def method Greeter.__init__
        self.name = name  # @def field Greeter.name

    @functools.lru_cache
    def greet(self, loud=False):  # @def method Greeter.greet
        """Returns the greeting."""
        greeting = self.greeting  # @ref name greeting in Greeter.greet
        text = f"{greeting}, {self.name}"

        def shout(s):  # @def function Greeter.greet.shout
            return s.upper()

        return shout(text) if loud else text  # @ref call shout in Greeter.greet

    class Inner:  # @def class Greeter.Inner
        pass


def main():  # @def function main
    print(Greeter(default_name).greet())  # @ref call print in main @ref call Greeter in main @ref call greet in main @ref name default_name in main


@functools.cache
def _helper():  # @def function _helper
    return None
from os.path import join as join_path  # @ref import os.path @ref import_name join
from os import *  # @ref import os @ref import_name *

try:
    import tomllib  # @ref import tomllib
    HAVE_TOML = True  # @def constant HAVE_TOML
except ImportError:
    HAVE_TOML = False  # @def constant HAVE_TOML
    tomllib = None  # @def variable tomllib

if HAVE_TOML:
    parser_name = "tomllib"  # @def variable parser_name
elif MAX_GREETINGS:
    parser_name = None  # @def variable parser_name
else:
    Fallback = dict  # @def variable Fallback

    def fallback_parse(text):  # @def function fallback_parse
        local = text.strip()
        return Fallback(local=local)  # @ref call Fallback in fallback_parse

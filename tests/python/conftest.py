import os
import sys

# The tests import the in-tree package (python/tessera) and the shared operator definitions.
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)

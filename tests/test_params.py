"""Each estimator's signature, constraints and documented parameters come from one declaration."""

import inspect
import re

import pytest
from sklearn.base import clone
from sklearn.utils._param_validation import StrOptions

from dpdt import (
    BranchesClassifier,
    DPDTGradientBoostingClassifier,
    DPDTGradientBoostingRegressor,
    DPDTreeClassifier,
    DPDTreeClassifierCV,
    DPDTreePolicy,
    DPDTreePolicyCV,
    DPDTreeRegressor,
    DPDTreeRegressorCV,
)
from dpdt._params import TREE, Param, declare, derive, passed_on

DECLARED = [DPDTreeClassifier, DPDTreeRegressor, DPDTreeClassifierCV, DPDTreeRegressorCV,
            DPDTreePolicy, DPDTreePolicyCV,
            DPDTGradientBoostingClassifier, DPDTGradientBoostingRegressor, BranchesClassifier]


def documented_parameters(cls):
    section = re.search(r"Parameters\n\s*-+\n(.*?)\n\s*\n", cls.__doc__, flags=re.DOTALL).group(1)
    names = []
    for line in section.splitlines():
        if line.strip() and not line.startswith(" " * 8):
            names.extend(name.strip() for name in line.split(" : ")[0].split(","))
    return names


@pytest.mark.parametrize("cls", DECLARED, ids=lambda cls: cls.__name__)
def test_signature_constraints_and_doc_name_the_same_parameters(cls):
    signature = inspect.signature(cls)
    assert {p.kind for p in signature.parameters.values()} == {inspect.Parameter.KEYWORD_ONLY}
    names = [param.name for param in cls._params]
    assert list(signature.parameters) == names
    assert list(cls._parameter_constraints) == names
    assert sorted(documented_parameters(cls)) == sorted(names)
    defaults = {name: p.default for name, p in signature.parameters.items()}
    assert cls().get_params() == defaults


@pytest.mark.parametrize("cls", DECLARED, ids=lambda cls: cls.__name__)
def test_documented_string_options_are_the_admitted_ones(cls):
    for param in cls._params:
        options = [rule.options for rule in param.constraint if isinstance(rule, StrOptions)]
        if param.type and param.type.startswith("{"):
            listed = set(re.findall(r'"([^"]+)"', param.type.split("}")[0]))
            assert options and listed == options[0], param.name


def test_cv_estimators_take_every_tree_parameter_they_pass_on():
    for cv, tree in ((DPDTreeClassifierCV, DPDTreeClassifier),
                     (DPDTreeRegressorCV, DPDTreeRegressor), (DPDTreePolicyCV, DPDTreePolicy)):
        # A policy's budget selects trees by cost, not by the alpha a CV validates.
        passed = {param.name for param in passed_on(tree._params)} - {"max_cost"}
        assert passed <= set(cv().get_params())
        defaults = tree().get_params()
        # The CV estimators choose among trees by validation, with defaults of their own for
        # what that choice counts (complexity) and, for squared error, leaf sizes.
        own = {"complexity"} | ({"min_samples_leaf"} if tree is DPDTreeRegressor else set())
        assert {name for name in passed if cv().get_params()[name] != defaults[name]} == own


def test_a_declared_parameter_reaches_init_constraints_and_doc():
    extra = Param("throwaway", 7, [int], "int", "A parameter that exists for this test.")

    @declare(derive(TREE, after={"verbose": (extra,)}))
    class Tree(DPDTreeClassifier):
        """A tree with one more parameter.

        Examples
        --------
        >>> Tree().throwaway
        7
        """

    tree = Tree(throwaway=3)
    assert tree.throwaway == 3 and clone(tree).get_params()["throwaway"] == 3
    assert Tree._parameter_constraints["throwaway"] == [int]
    assert "throwaway : int, default=7" in Tree.__doc__
    assert "Tree(throwaway=3)" == repr(tree)
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        Tree(nope=1)
    with pytest.raises(TypeError):
        Tree(3)

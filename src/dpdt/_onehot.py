"""A model fitted on a table whose string columns are one-hot encoded, saved with its encoding."""

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._io import SaveMixin, register_estimator, register_type

# The suffix of the indicator of a column's missing values, as pandas' get_dummies names it.
MISSING_SUFFIX = "nan"


def is_categorical(column):
    """Return whether a DataFrame column holds categories: strings, objects or pandas categories.

    Booleans and numbers are numeric features as they are.
    """
    dtype = column.dtype
    return dtype.kind in "OUS" or str(dtype) in ("category", "string")


@register_type("OneHotColumns")
class OneHotColumns:
    """The one-hot encoding of a table's categorical columns, learnt once and kept for predict.

    Each categorical column becomes one indicator column (0 or 1) per category seen in
    training, named ``<column>_<category>`` and in the order of the sorted categories;
    numeric columns stay as they are, in their place. A category unseen in training has every
    indicator 0. A column with missing values in training gets one more indicator,
    ``<column>_nan``, which is 1 where the value is missing; a missing value in a column that
    had none in training has every indicator 0, as an unseen category.

    Attributes
    ----------
    columns_ : ndarray of str
        The table's columns, in order.
    categories_ : list of ndarray of str or None
        For each column, its sorted categories, or None for a numeric column.
    missing_ : ndarray of bool
        For each column, whether it has a missing-value indicator.
    """

    def fit(self, frame):
        """Learn the categories of the categorical columns of a DataFrame; return self."""
        self.columns_ = np.array([str(name) for name in frame.columns])
        self.categories_, missing = [], []
        for name in frame.columns:
            column = frame[name]
            if not is_categorical(column):
                self.categories_.append(None)
                missing.append(False)
                continue
            absent = column.isna().to_numpy()
            keys = column[~absent].astype(str).to_numpy().astype(str)
            self.categories_.append(np.unique(keys))
            missing.append(bool(absent.any()))
        self.missing_ = np.array(missing, dtype=bool)
        names = self.names_out()
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"one-hot encoding names two columns {repeated[0]!r}: rename the "
                             "column or the category")
        return self

    def names_out(self):
        """Return the names of the encoded table's columns, in order."""
        names = []
        for name, categories, missing in zip(self.columns_, self.categories_, self.missing_,
                                             strict=True):
            if categories is None:
                names.append(str(name))
                continue
            names.extend(f"{name}_{category}" for category in categories)
            if missing:
                names.append(f"{name}_{MISSING_SUFFIX}")
        return names

    def transform(self, frame):
        """Return the encoded DataFrame of a DataFrame with (at least) the fitted columns."""
        import pandas as pd

        absent = [name for name in self.columns_.tolist() if name not in frame.columns]
        if absent:
            raise ValueError(f"missing feature columns {absent}")
        encoded = {}
        for name, categories, missing in zip(self.columns_.tolist(), self.categories_,
                                             self.missing_, strict=True):
            column = frame[name]
            if categories is None:
                if is_categorical(column):
                    raise ValueError(f"column {name!r} is not numeric (dtype {column.dtype}) "
                                     "but was numeric in training")
                encoded[str(name)] = column.to_numpy()
                continue
            absent = column.isna().to_numpy()
            keys = column.astype(str).to_numpy().astype(str)
            # The position of each value among the sorted categories; -1 for a missing value
            # and for a category unseen in training: no indicator set.
            position = np.clip(np.searchsorted(categories, keys), 0, max(len(categories) - 1, 0))
            found = (categories[position] == keys) if len(categories) else np.zeros(len(keys), bool)
            codes = np.where(found & ~absent, position, -1)
            for k, category in enumerate(categories):
                encoded[f"{name}_{category}"] = (codes == k).astype(np.float64)
            if missing:
                encoded[f"{name}_{MISSING_SUFFIX}"] = absent.astype(np.float64)
        return pd.DataFrame(encoded, index=frame.index)

    def _encode(self, encoder, where):
        return {"columns": encoder.array(self.columns_, where),
                "categories": [None if c is None else encoder.array(c, where)
                               for c in self.categories_],
                "missing": encoder.array(self.missing_, where)}

    @classmethod
    def _decode(cls, node, decoder, where):
        encoding = cls()
        encoding.columns_ = decoder.array(node.get("columns"), where, "U")
        encoding.missing_ = decoder.array(node.get("missing"), where, "ub")
        categories = node.get("categories")
        n_columns = len(encoding.columns_)
        decoder.expect(encoding.columns_.ndim == 1 and n_columns >= 1
                       and encoding.missing_.shape == (n_columns,)
                       and isinstance(categories, list) and len(categories) == n_columns,
                       f"{where}: the one-hot encoding's columns do not agree")
        encoding.categories_ = [None if c is None else decoder.array(c, where, "U")
                                for c in categories]
        for table in encoding.categories_:
            # transform looks categories up as sorted, distinct strings.
            decoder.expect(table is None or (table.ndim == 1 and np.all(table[1:] > table[:-1])),
                           f"{where}: bad categories")
        encoding.missing_ = encoding.missing_.astype(bool)
        decoder.expect(not any(m and c is None for m, c in zip(
            encoding.missing_, encoding.categories_, strict=True)),
            f"{where}: a numeric column with a missing-value indicator")
        return encoding


def _estimator_has(name):
    return lambda self: hasattr(self.estimator_ if hasattr(self, "estimator_")
                                else self.estimator, name)


@register_estimator
class OneHotEncoded(SaveMixin, MetaEstimatorMixin, BaseEstimator):
    """A model fitted on a table whose categorical columns are one-hot encoded first.

    The encoding is learnt in :meth:`fit` and kept (see :class:`OneHotColumns`): each string
    (or object, or pandas category) column becomes one 0/1 indicator column per category,
    named ``<column>_<category>``, and predictions take the raw table. A category unseen in
    training sets no indicator. A column with missing values in training gets the indicator
    ``<column>_nan``; a missing value in a column without one in training sets no indicator.
    Numeric columns are passed on as they are. ``dpdt fit`` fits this on a table with string
    columns, and the model file holds the encoding with the model.

    Parameters
    ----------
    estimator : estimator
        The model fitted on the encoded table, a dpdt estimator to be saved.

    Attributes
    ----------
    estimator_ : estimator
        The fitted model; its ``feature_names_in_`` are the encoded columns.
    encoding_ : OneHotColumns
        The encoding.
    n_features_in_ : int
        Number of columns of the raw table.
    feature_names_in_ : ndarray of str
        The raw table's columns.
    classes_ : ndarray
        The model's classes, for a classifier.

    Examples
    --------
    >>> import pandas as pd
    >>> from dpdt import DPDTreeClassifier, OneHotEncoded
    >>> X = pd.DataFrame({"island": ["Biscoe", "Dream", "Biscoe", "Torgersen"],
    ...                   "mass": [4.1, 3.2, 4.5, 3.9]})
    >>> model = OneHotEncoded(DPDTreeClassifier(max_depth=1)).fit(X, [1, 0, 1, 0])
    >>> model.estimator_.feature_names_in_.tolist()
    ['island_Biscoe', 'island_Dream', 'island_Torgersen', 'mass']
    >>> model.predict(pd.DataFrame({"island": ["Biscoe", "Fair Isle"], "mass": [3.0, 3.0]}))
    array([1, 0])
    """

    _parameter_constraints: dict = {"estimator": [HasMethods(["fit", "predict"])]}

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y, **fit_params):
        """Learn the encoding of the table ``X`` and fit the model on the encoded table.

        Parameters
        ----------
        X : DataFrame of shape (n_samples, n_features)
            The raw table, its columns named by strings.
        y : array-like of shape (n_samples,)
            Target.
        **fit_params : dict
            Passed to the model's ``fit`` (``sample_weight``).

        Returns
        -------
        self : OneHotEncoded
            The fitted model.
        """
        self._validate_params()
        if not hasattr(X, "columns") or not all(isinstance(c, str) for c in X.columns):
            raise ValueError("OneHotEncoded needs a DataFrame with string column names: they "
                             "name the indicator columns")
        self.encoding_ = OneHotColumns().fit(X)
        self.n_features_in_ = X.shape[1]
        self.feature_names_in_ = self.encoding_.columns_.astype(object)
        self.estimator_ = clone(self.estimator).fit(self.encoding_.transform(X), y, **fit_params)
        return self

    def transform(self, X):
        """Return the encoded table of the raw table ``X``, as the model reads it."""
        check_is_fitted(self)
        if not hasattr(X, "columns"):
            raise ValueError("OneHotEncoded needs a DataFrame: its columns name the categories")
        return self.encoding_.transform(X)

    @property
    def classes_(self):
        """The model's classes."""
        return self.estimator_.classes_

    def predict(self, X):
        """Return the model's predictions on the raw table ``X``."""
        return self.estimator_.predict(self.transform(X))

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """Return the model's class probabilities on the raw table ``X``."""
        return self.estimator_.predict_proba(self.transform(X))

    def score(self, X, y, sample_weight=None):
        """Return the model's score on the raw table ``X``."""
        return self.estimator_.score(self.transform(X), y, sample_weight=sample_weight)

    def _check_fitted_state(self, decoder, where):
        encoding, model = getattr(self, "encoding_", None), getattr(self, "estimator_", None)
        decoder.expect(isinstance(encoding, OneHotColumns)
                       and list(encoding.columns_) == list(self.feature_names_in_),
                       f"{where}: the one-hot encoding does not match feature_names_in_")
        names = getattr(model, "feature_names_in_", None)
        decoder.expect(isinstance(model, SaveMixin) and names is not None
                       and list(names) == encoding.names_out(),
                       f"{where}: the model's features are not the encoded columns")

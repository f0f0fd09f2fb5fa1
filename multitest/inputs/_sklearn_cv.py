"""What a scikit-learn object says about its results: the fold design of its splitter
(``search.cv``, ``cv=``) and the name of an estimator's default score.

scikit-learn is imported only when the user hands over one of its objects (which
proves it is installed), through :func:`_sklearn`: the inputs never depend on it.
"""

from __future__ import annotations

import importlib
import numbers
from dataclasses import dataclass
from fractions import Fraction

from .._errors import MultitestError, abbreviate
from ._design import FoldDesign

__all__: list = []   # used by the readers of _sklearn only

class _NotGiven:
    """The `cv` of results that came without their splitter (a ``cv_results_`` dict)."""

    def __repr__(self):
        return "NOT_GIVEN"


NOT_GIVEN = _NotGiven()

#: The ``cv`` of scikit-learn's searches and ``cross_validate`` when none is given.
DEFAULT_FOLDS = 5
#: ShuffleSplit's ``test_size`` when neither size is given.
SHUFFLE_DEFAULT_TEST_SIZE = 0.1


@dataclass(frozen=True)
class SplitDesign:
    """The fold design of a splitter, and the sentence saying where it comes from.

    Attributes
    ----------
    design : FoldDesign
        Replications x folds, split ``i`` being replication ``i // folds + 1``,
        fold ``i % folds + 1`` (scikit-learn's order of the splits: repeat-major),
        and the test/train ratio when it is not ``1 / (k - 1)`` of k folds.
    note : str
        How the design was read, or why it could not be.
    """

    design: FoldDesign
    note: str

    def replication_and_fold(self, split):
        """``(replication, fold)``, 1-based, of the 0-based split number `split`."""
        return split // self.design.folds + 1, split % self.design.folds + 1


def _sklearn(module):
    """A scikit-learn module, installed when the user's object comes from it (not a
    module-level import: the inputs do not depend on scikit-learn)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MultitestError(f"reading a splitter or an estimator needs scikit-learn "
                             f"({module} not importable): pip install scikit-learn") from None


def _k_folds(cv, n_splits):
    k = cv.get_n_splits()
    return FoldDesign(replications=1, folds=k), f"one replication of {k} folds"


def _leave_one_out(cv, n_splits):
    return (FoldDesign(replications=1, folds=n_splits),
            f"one replication of {n_splits} folds of one sample")


def _repeated(cv, n_splits):
    r, k = cv.n_repeats, cv.get_n_splits() // cv.n_repeats
    return (FoldDesign(replications=r, folds=k),
            f"{r} repeats of {k} folds, scikit-learn's split i being replication i // {k} + 1, "
            f"fold i % {k} + 1")


def _shuffled(cv, n_splits):
    ratio = _shuffle_ratio(cv.test_size, cv.train_size)
    n = cv.get_n_splits()
    said = (f"{n} random test sets, one fold per replication, test/train ratio "
            f"{Fraction(ratio).limit_denominator(1000)} from the sizes (before rounding to whole "
            "samples)" if ratio is not None else
            f"{n} random test sets, one fold per replication; their test/train ratio needs the "
            "number of samples: give rank(test_train_ratio=n_test/n_train) to corrected-t")
    return FoldDesign(replications=cv.get_n_splits(), folds=1, test_train_ratio=ratio), said


def _group_shuffled(cv, n_splits):
    return (FoldDesign(replications=cv.get_n_splits(), folds=1),
            f"{cv.get_n_splits()} random test sets of groups, one fold per replication; their "
            "sizes count groups, not samples: give rank(test_train_ratio=n_test/n_train) to "
            "corrected-t")


def _shuffle_ratio(test, train):
    """``n_test / n_train`` of ShuffleSplit's sizes, or None when it needs the sample count."""
    if test is None and train is None:
        test = SHUFFLE_DEFAULT_TEST_SIZE
    sizes = [test, train]
    if all(isinstance(s, numbers.Integral) for s in sizes):
        return test / train
    if any(isinstance(s, numbers.Integral) for s in sizes):
        return None   # an absolute size beside a fraction or the rest
    test = 1 - train if test is None else test
    train = 1 - test if train is None else train
    return test / train


def _registry():
    """``(splitter classes, design)`` of the splitters whose design is known."""
    ms = _sklearn("sklearn.model_selection")
    return (((ms.KFold, ms.StratifiedKFold, ms.GroupKFold, ms.StratifiedGroupKFold), _k_folds),
            ((ms.RepeatedKFold, ms.RepeatedStratifiedKFold), _repeated),
            ((ms.ShuffleSplit, ms.StratifiedShuffleSplit), _shuffled),
            ((ms.GroupShuffleSplit,), _group_shuffled),
            ((ms.LeaveOneOut,), _leave_one_out))


def split_design(cv, n_splits, *, where, classifier=None):
    """The :class:`SplitDesign` of scikit-learn's `cv` that made `n_splits` splits.

    Parameters
    ----------
    cv : None, int, splitter or NOT_GIVEN
        As scikit-learn takes it: None (5 folds), an integer (``check_cv``:
        StratifiedKFold for a classifier, KFold otherwise, the same design),
        a splitter of :mod:`sklearn.model_selection`; :data:`NOT_GIVEN` when
        the results came without one.  Any other splitter or an iterable of
        splits: one replication of `n_splits` folds, said in the note.
    n_splits : int
        The splits the results hold.
    where : str
        What `cv` is (``search.cv``, ``cv``), for the note and the messages.
    classifier : bool, optional
        Whether the estimator is a classifier (which splitter an integer means).

    Raises
    ------
    MultitestError
        If the design does not make `n_splits` splits.
    """
    if cv is NOT_GIVEN:
        return SplitDesign(
            design=FoldDesign(replications=1, folds=n_splits),
            note=f"the splitter of the results is not known (no search.cv, no cv=): "
                 f"{n_splits} splits read as one replication of {n_splits} folds")
    if cv is None or (isinstance(cv, numbers.Integral) and not isinstance(cv, bool)):
        return _integer_design(DEFAULT_FOLDS if cv is None else int(cv), n_splits, where,
                               classifier)
    read = next((read for classes, read in _registry() if isinstance(cv, classes)), None)
    shown = abbreviate(repr(cv), 120)
    if read is None:
        return SplitDesign(
            design=FoldDesign(replications=1, folds=n_splits),
            note=f"{where} = {shown}: its design is not known to multitest; {n_splits} splits "
                 f"read as one replication of {n_splits} folds (test/train ratio 1/"
                 f"{max(n_splits - 1, 1)}); give rank(test_train_ratio=...) if not")
    design, said = read(cv, n_splits)
    if design.n != n_splits:
        raise MultitestError(f"{where} = {shown} makes {design.n} splits, the results hold "
                             f"{n_splits}")
    return SplitDesign(design=design, note=f"design {design} from {where} = {shown} ({said})")


def _integer_design(k, n_splits, where, classifier):
    if k != n_splits:
        raise MultitestError(f"{where} = {k} makes {k} splits, the results hold {n_splits}")
    splitter = {True: "StratifiedKFold (a classifier)", False: "KFold (not a classifier)",
                None: "StratifiedKFold for a classifier, KFold otherwise"}[classifier]
    return SplitDesign(design=FoldDesign(replications=1, folds=k),
                       note=f"design 1x{k} from {where} = {k}, as scikit-learn's check_cv "
                            f"reads it: {splitter}")


def default_score_name(estimator):
    """The metric of an estimator's ``score``: ``accuracy`` (a classifier), ``r2``
    (a regressor), or None (neither, or not a scikit-learn estimator)."""
    base = _sklearn("sklearn.base")
    try:
        if base.is_classifier(estimator):
            return "accuracy"
        return "r2" if base.is_regressor(estimator) else None
    except (AttributeError, TypeError):   # not an estimator: its score is not known
        return None

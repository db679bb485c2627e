"""The watchdog's limit the driver gives the tests (suite/support/watchdog.hpp): short in the
quick profile, long in the others, and never over a limit the caller chose."""

from driver import ctest
from driver.options import PROFILES


def limit(scale: float, extra: dict[str, str] | None = None) -> str:
    return ctest.test_environment(scale, 1, extra or {})["SAFERECL_WATCHDOG_SECONDS"]


def test_the_quick_profile_gets_the_short_limit(monkeypatch):
    monkeypatch.delenv("SAFERECL_WATCHDOG_SECONDS", raising=False)
    assert limit(PROFILES["quick"]) == str(ctest.QUICK_WATCHDOG_SECONDS)
    assert limit(0.1) == str(ctest.QUICK_WATCHDOG_SECONDS)


def test_the_long_profiles_get_the_long_limit(monkeypatch):
    monkeypatch.delenv("SAFERECL_WATCHDOG_SECONDS", raising=False)
    assert ctest.LONG_WATCHDOG_SECONDS > ctest.QUICK_WATCHDOG_SECONDS
    assert limit(PROFILES["full"]) == limit(PROFILES["soak"]) == str(ctest.LONG_WATCHDOG_SECONDS)


def test_a_limit_set_by_the_user_or_the_caller_wins(monkeypatch):
    monkeypatch.setenv("SAFERECL_WATCHDOG_SECONDS", "42")
    assert limit(PROFILES["quick"]) == "42"
    assert limit(PROFILES["quick"], {"SAFERECL_WATCHDOG_SECONDS": "5"}) == "5"

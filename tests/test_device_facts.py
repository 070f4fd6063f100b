"""Device facts per MindSpore release (issue 23 item 5): msgraphlint/verify/device_facts.json
holds one measured entry per minor release and device (``python -m
msgraphlint.verify.measure_facts --python <that release's interpreter> --write``), and
``facts.lookup`` answers with the release's own entry, or the nearest one marked not exact."""

from __future__ import annotations

import re

from msgraphlint.verify import facts


def test_two_releases_are_measured_on_cpu():
    versions = facts.load()["versions"]
    assert {"2.7", "2.10"} <= {k for k, v in versions.items() if "CPU" in v}


def test_every_entry_says_how_and_on_which_release_it_was_measured():
    for key, devices in facts.load()["versions"].items():
        for device, entry in devices.items():
            assert entry["source"] == "measured", (key, device)
            m = re.search(r"MindSpore (\d+\.\d+)\.\d+, (\w+),", entry["how"])
            assert m and m.group(1) == key and m.group(2) == device, (key, device, entry["how"])
            assert entry["fuse"] and not set(entry["fuse"]) & set(entry["never_fuse"]), (key, device)


def test_lookup_takes_the_release_entry_or_the_nearest_marked_not_exact():
    f27 = facts.lookup("2.7.2", "CPU")
    assert (f27.key, f27.exact) == ("2.7", True)
    assert f27.fusible("Add") and not f27.fusible("Sigmoid")
    older = facts.lookup("2.6.0", "CPU")
    assert older.key == "2.7" and not older.exact
    assert facts.lookup("2.10.0", "GPU").source == "none"

"""hardware/README.md's wiring tables are generated from the profiles and kept current."""

from __future__ import annotations

from pathlib import Path

from controller.devices import wiring
from controller.devices.profile import load_profile


def test_hardware_readme_wiring_tables_are_current() -> None:
    assert wiring.main(["--check"]) == 0, "run `pitboss hardware wiring`"


def test_check_fails_on_a_stale_readme_and_writing_fixes_it(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# intro\n")
    assert wiring.main(["--check", "--readme", str(readme)]) == 1
    assert wiring.main(["--readme", str(readme)]) == 0
    assert readme.read_text().startswith("# intro\n")
    assert wiring.main(["--check", "--readme", str(readme)]) == 0


def test_bill_of_materials_counts_the_parts_of_a_build() -> None:
    bom = wiring.bill_of_materials(load_profile("sixmax-pi"))
    assert bom["mfrc522"] == 7  # six seats + the board
    assert bom["pn532"] == 8  # six players + muck + deck
    assert bom["mux"] == 1 and bom["led"] == 6 and bom["key"] == 5
    t = wiring.bill_of_materials(load_profile("tournament-10"))
    assert t["seatnode"] == 10 and t["usbhub"] == 1 and t["usbcable"] == 10
    assert "rs485" not in t  # point-to-point link: one USB serial line per node


def test_wiring_table_lists_each_gpio_with_its_header_pin() -> None:
    section = wiring.profile_section(load_profile("sixmax-pi"))
    assert "| GPIO17 | 11 | seat 1 light |" in section
    assert "| GPIO10 | 19 | spi0 MOSI |" in section

"""Contacts tasks (AndroidWorld's ``single/contacts.py``).

ContactsAddContact reads the contacts provider (``content query --uri content://contacts/phones/``):
a contact with exactly the name and the number's digits must exist; the provider is cleared
first. ContactsNewContactDraft reads the screen: the new-contact form must hold the first and
last names (fuzzy), the phone number (digits) and the phone label, unsaved.
"""

from __future__ import annotations

import random
from typing import Any

from gui_gym.backends.android.elements import UIElement
from gui_gym.suites.android import generation
from gui_gym.suites.android.device import Device
from gui_gym.suites.android.matching import digits, fuzzy_match
from gui_gym.suites.android.tasks.base import AndroidWorldTask

DRAFT_FIRST_NAMES = ("Alma", "Bruno", "Cleo", "Dante", "Edith", "Fritz", "Gia", "Hugo", "Iris", "Jude")
DRAFT_LAST_NAMES = ("Archer", "Bishop", "Carver", "Dalton", "Ellis", "Fletcher", "Grant", "Hayes", "Irwin", "Jensen")
PHONE_LABELS = ("Home", "Work")  # not "Mobile": it appears twice on the form


class ContactsAddContact(AndroidWorldTask):
    """A contact with the name and (digits of the) number must exist."""

    name, complexity, app_names = "ContactsAddContact", 1.2, ("contacts",)
    template = "Create a new contact for {name}. Their number is {number}."

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"name": generation.random_name(rng), "number": generation.random_phone_number(rng)}

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_contacts()

    def is_successful(self, device: Device) -> float:
        return float((self.params["name"], digits(self.params["number"])) in device.contacts())


class ContactsNewContactDraft(AndroidWorldTask):
    """The new-contact form must show the details, not yet saved."""

    name, complexity, app_names = "ContactsNewContactDraft", 1.2, ("contacts",)
    fidelity = ("reads the form from the uiautomator dump, what is on screen; AndroidWorld reads its accessibility "
                "forest, which also holds fields scrolled out of view, so a form scrolled past a field fails here")
    template = ("Go to the new contact screen and enter the following details: First Name: {first}, Last Name: "
                "{last}, Phone: {phone}, Phone Label: {phone_label}. Do NOT hit save.")

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        return {"first": rng.choice(DRAFT_FIRST_NAMES), "last": rng.choice(DRAFT_LAST_NAMES),
                "phone": f"{rng.randint(100, 999)}-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}",
                "phone_label": rng.choice(PHONE_LABELS)}

    def is_successful(self, device: Device) -> float:
        return float(form_filled(device.ui_elements(), **{k: self.params[k] for k in ("first", "last", "phone",
                                                                                      "phone_label")}))


def form_filled(elements: list[UIElement], first: str, last: str, phone: str, phone_label: str) -> bool:
    """Whether the elements show a contact form with these details: fields found by their hint
    text, the label by its text and description (or, lacking a description, by sitting just
    below the phone field)."""
    found: dict[str, UIElement] = {}
    for element in elements:
        text = element.text
        if text and fuzzy_match(text, first) and element.hint_text == "First name":
            found["first"] = element
        elif text and fuzzy_match(text, last) and element.hint_text == "Last name":
            found["last"] = element
        elif text and digits(text) == digits(phone) and element.hint_text == "Phone":
            found["phone"] = element
        elif text == phone_label and element.content_description == f"{phone_label} Phone":
            found["label"] = element
    if "phone" in found and "label" not in found:
        box = found["phone"].bbox_pixels
        for element in elements:
            other = element.bbox_pixels
            if element.text == phone_label and box and other and \
                    box.y_max <= other.y_min <= box.y_max + (box.y_max - box.y_min):
                found["label"] = element
    return len(found) == 4


TASKS = (ContactsAddContact, ContactsNewContactDraft)

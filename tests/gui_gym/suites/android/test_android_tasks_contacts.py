"""Contacts tasks on the virtual phone: the contacts provider (added contact) and the
new-contact form on screen (draft, not saved)."""

from __future__ import annotations

import pytest

from tests.fakes.android_world import fake_phone

CONTACTS = "com.google.android.contacts"


@pytest.fixture(scope="module")
def phone():
    with fake_phone() as p:
        yield p


def test_add_contact_reads_the_provider(phone):
    phone.device.contacts.append(("Old Entry", "1"))
    task = phone.task("ContactsAddContact", seed=3)
    assert phone.device.contacts == [] and phone.score(task) == 0.0
    phone.device.contacts.append((task.params["name"], task.params["number"][2:]))  # other digits
    assert phone.score(task) == 0.0
    number = task.params["number"]
    phone.device.contacts.append((task.params["name"], f"{number[:2]} ({number[2:5]}) {number[5:8]}-{number[8:]}"))
    assert phone.score(task) == 1.0


def test_new_contact_draft_reads_the_form(phone):
    task = phone.task("ContactsNewContactDraft", seed=1)
    assert phone.score(task) == 0.0
    app = phone.device.show(CONTACTS)
    app.prefill(f"{task.params['first']} {task.params['last']}", task.params["phone"].replace("-", ""))
    assert phone.score(task) == 0.0  # the label still says Mobile
    app.phone_label = task.params["phone_label"]
    assert phone.score(task) == 1.0
    app.save()  # saved: the form is gone
    assert phone.score(task) == 0.0

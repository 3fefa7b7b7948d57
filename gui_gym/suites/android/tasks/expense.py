"""Pro Expense tasks (AndroidWorld's ``single/expense.py``), read from the app's database.

The ``expense`` table of ``accounting.db``: name, amount in cents, category id (1 Others, 2
Income, 3 Food, ... 11 Donation), note, created/modified time in ms. Deleting checks that
exactly the targets went; the duplicate tasks that exactly one of two identical rows went;
adding that the rows exist (name and note fuzzily, amount and category exactly) and nothing
else changed. The goal lists the rows as "a|b" lines or as text blocks, or points at a note in
Markor or a picture in Simple Gallery that holds them.
"""

from __future__ import annotations

import datetime
import random
from typing import Any

from gui_gym.suites.android import media
from gui_gym.suites.android.device import Device
from gui_gym.suites.android.device_files import GALLERY, MARKOR
from gui_gym.suites.android.tasks.rows import (NOISE_ROWS, ROWS, AddRowsTask, DeleteDuplicatesTask, DeleteRowsTask,
                                         SQLiteTask, random_rows, rows_as_text)

APP = "pro expense"
CATEGORIES = {1: "Others", 2: "Income", 3: "Food", 4: "Housing", 5: "Social", 6: "Entertainment", 7: "Transportation",
              8: "Clothes", 9: "Health Care", 10: "Education", 11: "Donation"}
NAMES = {
    "Others": ("Spare Keys", "Dog Food", "Vet Bill", "Light Bulbs", "Printer Ink", "Repair Kit", "Gift Wrap",
               "App Subscription", "Club Fee", "Notary Fee"),
    "Income": ("Paycheck", "Side Gig", "Year-end Bonus", "Stock Dividend", "Savings Interest", "Room Rent",
               "Sold Bike", "Refund", "Tutoring Income", "Consulting"),
    "Food": ("Supermarket", "Bakery", "Espresso", "Burger Lunch", "Sushi Dinner", "Farmers Market", "Takeaway Pizza",
             "Snack Run", "Deli", "Brunch"),
    "Housing": ("Monthly Rent", "Mortgage Payment", "Plumber", "Electricity Bill", "Water Bill", "Home Insurance",
                "New Sofa", "Cleaner", "Gardener", "Internet Bill"),
    "Social": ("Birthday Dinner", "Friend's Gift", "Book Club", "Wedding Present", "Charity Gala", "Housewarming",
               "Bowling Night", "Karaoke", "Picnic Supplies", "Reunion"),
    "Entertainment": ("Cinema", "Concert", "Theatre", "Music Streaming", "Board Game", "Novel", "Magazine",
                      "Pottery Class", "Museum", "Theme Park"),
    "Transportation": ("Taxi", "Monthly Bus Pass", "Fuel", "Parking", "Car Service", "Bike Tune-up", "Car Insurance",
                       "Train Ticket", "Flight", "Ride Share"),
    "Clothes": ("Winter Coat", "T-Shirts", "Sneakers", "Dress", "Jeans", "Scarf", "Running Gear", "Socks",
                "Alterations", "Dry Cleaning"),
    "Health Care": ("GP Visit", "Pharmacy", "Health Plan", "Dentist", "Glasses", "Vitamins", "Gym Pass",
                    "Physiotherapy", "Blood Test"),
    "Education": ("Tuition", "Notebooks", "Course Books", "Online Course", "Conference", "Workshop Fee",
                  "Language App", "Library Fine", "Certification", "Private Tutor"),
    "Donation": ("Food Bank", "Charity Run", "Sponsorship", "Animal Shelter", "Crowdfunding", "Church Offering",
                 "Campaign Donation", "School Fund", "Research Fund", "Tree Planting"),
}
NOTES = ("Paid by card", "Urgent", "Monthly recurring", "Nice to have", "A need", "Transfer funds later",
         "Might repeat")
FIELDS = ("name", "amount_dollars", "category_name", "note")
TEXT_FORMAT = "text_representation_type"


def random_timestamp_ms(rng: random.Random) -> int:
    """A time in October 2023 up to the 15th (the device's today), on the hour, in ms."""
    when = datetime.datetime(2023, 10, rng.randint(1, 15), rng.randint(0, 23), tzinfo=datetime.timezone.utc)
    return int(when.timestamp()) * 1000


def random_expense(rng: random.Random) -> dict[str, Any]:
    created = random_timestamp_ms(rng)
    category = rng.choice(list(CATEGORIES))
    return {"name": rng.choice(NAMES[CATEGORIES[category]]), "amount": rng.randint(1000, 50000),
            "category": category, "note": rng.choice(NOTES), "created_date": created, "modified_date": created}


def as_text(rows, format_type: str, wrap_width: int | None = None) -> str:
    shown = [{**r, "amount_dollars": f"${r['amount'] / 100}", "category_name": CATEGORIES[r["category"]]} for r in rows]
    return rows_as_text(shown, FIELDS, format_type, "name", "Expense", wrap_width)


class _Expense(SQLiteTask):
    app_names = (APP,)
    db_path = "/data/data/com.arduia.expense/databases/accounting.db"
    table, db_key, db_app = "expense", "expense_id", APP


class _ExpenseDelete(_Expense, DeleteRowsTask):
    template = "Delete the following expenses from pro expense: {names}."
    n_rows, n_rows_noise, complexity = 3, 0, 2

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        rows: list[dict[str, Any]] = []
        while len(rows) < cls.n_rows + cls.n_rows_noise:
            candidate = random_expense(rng)
            if all(candidate["name"] != r["name"] for r in rows):
                rows.append(candidate)
        params = {ROWS: rows[:cls.n_rows]}
        if cls.n_rows_noise:
            params[NOISE_ROWS] = rows[cls.n_rows:]
        params["names"] = ", ".join(r["name"] for r in params[ROWS])
        return params


class ExpenseDeleteSingle(_ExpenseDelete):
    name, complexity, n_rows, n_rows_noise = "ExpenseDeleteSingle", 1, 1, 0


class ExpenseDeleteMultiple(_ExpenseDelete):
    name, complexity, n_rows, n_rows_noise = "ExpenseDeleteMultiple", 2, 3, 0


class ExpenseDeleteMultiple2(_ExpenseDelete):
    name, complexity, n_rows, n_rows_noise = "ExpenseDeleteMultiple2", 3.4, 3, 50


class ExpenseDeleteDuplicates(_Expense, DeleteDuplicatesTask):
    name, complexity, n_rows, n_rows_noise = "ExpenseDeleteDuplicates", 1.2, 1, 5
    template = ("Delete all but one of any expenses in pro expense that are exact duplicates, ensuring at least one "
                "instance of each unique expense remains.")

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        rows = random_rows(rng, cls.n_rows_noise + cls.n_rows, random_expense)
        target = rows.pop()
        return {ROWS: [target, dict(target)], NOISE_ROWS: rows}


class ExpenseDeleteDuplicates2(ExpenseDeleteDuplicates):
    """Also three near-duplicates of the target (other amount and dates), which must stay."""

    name, complexity, n_rows, n_rows_noise = "ExpenseDeleteDuplicates2", 1.8, 1, 40

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        noise = random_rows(rng, cls.n_rows_noise + cls.n_rows - 3, random_expense)
        target = noise.pop()
        variations = [{**target, "amount": target["amount"] + extra, "created_date": random_timestamp_ms(rng),
                       "modified_date": random_timestamp_ms(rng)} for extra in rng.sample(range(50, 1000), 3)]
        return {ROWS: [target, dict(target)], NOISE_ROWS: noise + variations}


class _ExpenseAdd(_Expense, AddRowsTask):
    template = "Add the following expenses into the pro expense:\n{expenses}"
    n_rows, n_rows_noise = 3, 10
    compare_fields, free_form_fields = ("name", "amount", "category", "note"), ("name", "note")

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        targets = random_rows(rng, cls.n_rows, random_expense)
        noise = random_rows(rng, cls.n_rows_noise, random_expense,
                            keep=lambda r: all(r["name"] != t["name"] for t in targets))
        return {ROWS: targets, NOISE_ROWS: noise, TEXT_FORMAT: rng.choice(("csv", "text_block"))}

    @property
    def goal(self) -> str:
        return self.template.format(expenses=as_text(self.params[ROWS], self.params[TEXT_FORMAT]))


class ExpenseAddSingle(_ExpenseAdd):
    name, complexity, n_rows, n_rows_noise = "ExpenseAddSingle", 1.2, 1, 10


class ExpenseAddMultiple(_ExpenseAdd):
    name, complexity, n_rows, n_rows_noise = "ExpenseAddMultiple", 6, 3, 10


class ExpenseAddMultipleFromMarkor(_ExpenseAdd):
    """The rows to add are the reimbursable ones among 100 in a Markor note."""

    name, complexity, n_rows, n_rows_noise = "ExpenseAddMultipleFromMarkor", 6, 2, 100
    app_names = (APP, "markor")
    template = ("Go through the transactions in my_expenses.txt in Markor. Log the reimbursable transactions in the "
                "pro expense.")

    @property
    def goal(self) -> str:
        return self.template

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        targets = [{**r, "note": r["note"] + ". Reimbursable."} for r in self.params[ROWS]]
        rows = targets + list(self.params[NOISE_ROWS])
        self.rng.shuffle(rows)
        device.clear_directory(MARKOR)
        device.write_file(f"{MARKOR}/my_expenses.txt", as_text(rows, "csv").encode())
        device.close_app("markor")

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_directory(MARKOR)


class ExpenseAddMultipleFromGallery(_ExpenseAdd):
    """The rows to add are written in a picture, among ten older pictures of other expenses."""

    name, complexity, n_rows, n_rows_noise = "ExpenseAddMultipleFromGallery", 6, 3, 10
    app_names = (APP, "simple gallery pro")
    template = "Add the expenses from expenses.jpg in Simple Gallery Pro to pro expense."

    @property
    def goal(self) -> str:
        return self.template

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_device_storage()
        device.write_file(f"{GALLERY}/expenses.jpg", media.text_image(as_text(self.params[ROWS], "text_block", 60)))
        old = media.text_image(as_text(self.params[NOISE_ROWS], "text_block", 60))
        for n in range(10):
            device.write_file(f"{GALLERY}/old_expenses_{n}.jpg", old)
        device.close_app("simple gallery pro")

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_device_storage()


TASKS = (ExpenseDeleteSingle, ExpenseDeleteMultiple, ExpenseDeleteMultiple2, ExpenseDeleteDuplicates,
         ExpenseDeleteDuplicates2, ExpenseAddSingle, ExpenseAddMultiple, ExpenseAddMultipleFromMarkor,
         ExpenseAddMultipleFromGallery)

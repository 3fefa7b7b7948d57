"""Broccoli tasks on the virtual phone: recipes set up in the app's database over adb, the
agent's deletions and additions written straight into it, scored by AndroidWorld's row checks."""

from __future__ import annotations

import pytest

from tests.fakes.android_world import fake_phone
from tests.fakes.app_data import db

DB = "/data/data/com.flauschcode.broccoli/databases/broccoli"
COLUMNS = ("title", "description", "servings", "preparationTime", "source", "ingredients", "directions", "favorite",
           "imageName")


@pytest.fixture(scope="module")
def phone():
    with fake_phone() as p:
        yield p


def rows(phone):
    with db(phone.device, DB) as connection:
        return [dict(r) for r in connection.execute("SELECT * FROM recipes")]


def execute(phone, sql, params=()):
    with db(phone.device, DB) as connection:
        connection.execute(sql, params)


def add(phone, row):
    execute(phone, f"INSERT INTO recipes ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
            [row[c] for c in COLUMNS])


def delete_targets(phone, task):
    ids = [r["recipeId"] for r in task.rows_to_delete]
    execute(phone, f"DELETE FROM recipes WHERE recipeId IN ({', '.join('?' * len(ids))})", ids)


@pytest.mark.parametrize("task_id, total", [
    ("RecipeDeleteSingleRecipe", 1), ("RecipeDeleteSingleWithRecipeWithNoise", 30), ("RecipeDeleteMultipleRecipes", 3),
    ("RecipeDeleteMultipleRecipesWithNoise", 32)])
def test_delete(phone, task_id, total):
    task = phone.task(task_id, seed=1)
    assert len(rows(phone)) == total and phone.score(task) == 0.0
    for title in task.params["titles"].split(", "):
        assert any(r["title"] == title for r in rows(phone))
    delete_targets(phone, task)
    assert phone.score(task) == 1.0


def test_delete_with_constraint(phone):
    task = phone.task("RecipeDeleteMultipleRecipesWithConstraint", seed=2)
    ingredient = task.params["ingredient"]
    with_it = [r for r in rows(phone) if ingredient in r["directions"].lower()]
    assert 1 <= len(with_it) <= 3 and len(rows(phone)) == 29 + len(with_it) and phone.score(task) == 0.0
    execute(phone, "DELETE FROM recipes WHERE instr(lower(directions), ?) > 0", (ingredient,))
    assert phone.score(task) == 1.0


@pytest.mark.parametrize("task_id, total, same_title", [
    ("RecipeDeleteDuplicateRecipes", 7, None), ("RecipeDeleteDuplicateRecipes2", 12, 6),
    ("RecipeDeleteDuplicateRecipes3", 32, 8)])
def test_delete_duplicates(phone, task_id, total, same_title):
    task = phone.task(task_id, seed=3)
    target = task.params["row_objects"][0]
    twins = [r["recipeId"] for r in rows(phone) if all(r[c] == target[c] for c in COLUMNS)]
    assert len(rows(phone)) == total and len(twins) == 2 and phone.score(task) == 0.0
    if same_title:
        assert sum(r["title"] == target["title"] for r in rows(phone)) == same_title
    execute(phone, "DELETE FROM recipes WHERE recipeId = ?", (twins[0],))
    assert phone.score(task) == 1.0


@pytest.mark.parametrize("task_id", ["RecipeAddSingleRecipe", "RecipeAddMultipleRecipes", "RecipeAddMultipleRecipesFromImage"])
def test_add(phone, task_id):
    task = phone.task(task_id, seed=4)
    assert len(rows(phone)) == 10 and phone.score(task) == 0.0
    for row in task.params["row_objects"]:
        add(phone, {**row, "directions": row["directions"].rstrip(".")})  # fuzzy
    assert phone.score(task) == 1.0
    execute(phone, "UPDATE recipes SET favorite = 1 WHERE recipeId = (SELECT max(recipeId) FROM recipes)")
    assert phone.score(task) == 0.0  # favourite is compared exactly


@pytest.mark.parametrize("task_id, listed", [("RecipeAddMultipleRecipesFromMarkor", 3),
                                             ("RecipeAddMultipleRecipesFromMarkor2", 43)])
def test_add_from_markor(phone, task_id, listed):
    task = phone.task(task_id, seed=5)
    note = phone.device.host_path("/sdcard/Documents/Markor/recipes.txt").read_text()
    csv = task.params["text_representation_type"] == "csv"
    assert (note.count("\n") if csv else note.count("Recipe: ")) == listed
    for row in task.params["row_objects"]:
        assert row["title"] in note
        add(phone, row)
    assert phone.score(task) == 1.0

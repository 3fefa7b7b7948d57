"""Broccoli recipe tasks (AndroidWorld's ``single/recipe.py``), read from the app's database.

The ``recipes`` table of Broccoli's database: title, description, servings, preparation time,
source, ingredients, directions, favourite flag, image. The checks are the expense tasks'
(`rows`): exactly the targets deleted; one of two duplicates deleted (near-duplicates, equal
in title but not in every field, stay); rows added with every text field matched fuzzily.
"""

from __future__ import annotations

import random
from typing import Any

from gui_gym.suites.android import media
from gui_gym.suites.android.device import Device
from gui_gym.suites.android.device_files import GALLERY, MARKOR
from gui_gym.suites.android.tasks.rows import (NOISE_ROWS, ROWS, AddRowsTask, DeleteDuplicatesTask, DeleteRowsTask,
                                               SQLiteTask, random_rows, rows_as_text)

APP = "broccoli app"
RECIPES = (
    ("Almond Butter Toast", "Toast rye bread, spread almond butter, top with sliced banana, honey and a pinch of salt."),
    ("Chickpea Curry", "Fry onion, garlic and ginger, add curry paste, chickpeas and coconut milk, simmer until thick."),
    ("Caprese Sandwich", "Layer tomato, mozzarella and basil on ciabatta, drizzle olive oil and balsamic vinegar."),
    ("Egg Fried Noodles", "Boil noodles, stir-fry with peas, spring onion and soy sauce, then toss in scrambled eggs."),
    ("Spinach Pesto Gnocchi", "Cook gnocchi, toss with spinach pesto and roasted cherry tomatoes, top with parmesan."),
    ("Chicken Fajita Bowl", "Grill chicken strips with peppers and onion, serve on rice with salsa and sour cream."),
    ("Mushroom Bruschetta", "Saute mushrooms with garlic and thyme, pile on toasted baguette, finish with parsley."),
    ("Baked Cod with Lemon", "Bake cod with butter, lemon juice and garlic, serve with green beans and potatoes."),
    ("Ham and Cheese Melt", "Layer ham and cheddar on sourdough, grill in a pan until the cheese melts."),
    ("Falafel Wrap", "Warm falafel, wrap in flatbread with hummus, cucumber, tomato and lettuce."),
    ("Thai Green Curry", "Simmer chicken in green curry paste and coconut milk with basil and bamboo shoots, serve "
                         "with rice."),
    ("Pork Teriyaki", "Stir-fry pork with broccoli and carrots in teriyaki sauce and garlic, serve over noodles."),
    ("Salmon Quinoa Salad", "Flake cooked salmon over quinoa with avocado, cucumber and red onion, dress with lime."),
    ("Ricotta Stuffed Peppers", "Fill peppers with ricotta, spinach, garlic and herbs, bake until soft."),
    ("Courgette Fritters", "Grate courgette, mix with egg, flour and feta, fry spoonfuls until golden."),
    ("Cauliflower Tacos", "Roast spiced cauliflower, fill tortillas, top with cabbage, avocado and lime crema."),
    ("Lentil Soup", "Simmer red lentils with onion, carrot, cumin and stock, blend until smooth."),
    ("Shrimp Garlic Pasta", "Saute shrimp in butter and garlic, toss with linguine, lemon and chili flakes."),
    ("Beef Chili", "Brown beef with onion and garlic, add beans, tomatoes and chili powder, simmer an hour."),
    ("Greek Yogurt Parfait", "Layer yogurt, granola and berries in a glass, finish with honey."),
    ("Tuna Nicoise", "Arrange tuna, boiled eggs, green beans, olives and potatoes on lettuce, dress with mustard "
                     "vinaigrette."),
    ("Sweet Potato Curry", "Simmer sweet potato and spinach in curry paste and coconut milk, serve with naan."),
    ("Mediterranean Couscous", "Fluff couscous with lemon, cucumber, tomato, feta and mint."),
    ("Teriyaki Tofu", "Fry tofu cubes until crisp, glaze with teriyaki sauce and sesame, serve with rice."),
    ("Pea and Mint Risotto", "Stir rice with stock until creamy, fold in peas, mint, butter and parmesan."),
    ("Roast Vegetable Wrap", "Roast peppers, courgette and onion, wrap with hummus and rocket."),
    ("Prawn Laksa", "Simmer laksa paste with coconut milk and stock, add prawns, noodles and lime."),
    ("Banana Oat Pancakes", "Blend banana, oats, eggs and milk, fry small pancakes, serve with honey."),
    ("Black Bean Quesadilla", "Fill tortillas with black beans, cheese and salsa, cook until crisp."),
    ("Miso Glazed Salmon", "Brush salmon with miso, honey and soy sauce, grill and serve with bok choy."),
    ("Tomato Basil Soup", "Roast tomatoes with garlic, blend with stock and basil, finish with cream."),
    ("Stuffed Mushrooms", "Fill mushroom caps with breadcrumbs, garlic, cheese and parsley, bake until golden."),
)
SPECIAL_TITLE = RECIPES[0][0]
"""A title at the top of the alphabetical recipe list: extra rows with it push the list down."""
DESCRIPTIONS = ("A quick and easy meal, perfect for busy weekdays.",
                "A delicious and healthy choice for any time of the day.",
                "An ideal recipe for experimenting with different flavors and ingredients.")
DIRECTION_ADDITIONS = ("Try adding a pinch of your favorite spices for extra flavor.",
                       "Feel free to substitute with ingredients you have on hand.",
                       "Garnish with fresh herbs for a more vibrant taste.")
INGREDIENT_NOTES = ("see directions", "as per recipe", "varies", "to preference", "quantities to taste", "as needed",
                    "optional ingredients", "n/a", "various amounts", "adjustable", "to your liking",
                    "flexible ingredients", "per individual taste", "as desired", "subject to change")
SERVINGS = ("1 serving", "2 servings", "3-4 servings", "6 servings", "8 servings")
PREP_TIMES = ("10 mins", "20 mins", "30 mins", "45 mins", "1 hrs", "2 hrs", "3 hrs", "4 hrs")
INGREDIENTS = ("garlic", "onion", "butter", "lemon", "basil", "cheese", "tomato", "rice", "coconut milk", "avocado",
               "spinach", "lime", "honey", "soy sauce", "eggs", "cucumber", "chili", "parmesan", "chicken", "beans")
FIELDS = ("title", "description", "servings", "preparationTime", "ingredients", "directions")
TEXT_FORMAT = "text_representation_type"


def random_recipe(rng: random.Random) -> dict[str, Any]:
    title, directions = rng.choice(RECIPES)
    return {"title": title, "description": rng.choice(DESCRIPTIONS), "servings": rng.choice(SERVINGS),
            "preparationTime": rng.choice(PREP_TIMES), "source": "", "ingredients": rng.choice(INGREDIENT_NOTES),
            "directions": f"{directions} {rng.choice(DIRECTION_ADDITIONS)}", "favorite": 0, "imageName": ""}


def as_text(rows, format_type: str, wrap_width: int | None = None) -> str:
    return rows_as_text(rows, FIELDS, format_type, "title", "Recipe", wrap_width)


class _Recipe(SQLiteTask):
    app_names = (APP,)
    db_path = "/data/data/com.flauschcode.broccoli/databases/broccoli"
    table, db_key, db_app = "recipes", "recipeId", APP


class _RecipeDelete(_Recipe, DeleteRowsTask):
    template = "Delete the following recipes from Broccoli app: {titles}."

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        recipes: list[dict[str, Any]] = []
        while len(recipes) < cls.n_rows + cls.n_rows_noise:
            candidate = random_recipe(rng)
            if all(candidate["title"] != r["title"] for r in recipes):
                recipes.append(candidate)
        params = {ROWS: recipes[cls.n_rows_noise:]}
        if cls.n_rows_noise:
            params[NOISE_ROWS] = recipes[:cls.n_rows_noise]
        params["titles"] = ", ".join(r["title"] for r in params[ROWS])
        return params


class RecipeDeleteSingleRecipe(_RecipeDelete):
    name, complexity, n_rows, n_rows_noise = "RecipeDeleteSingleRecipe", 1, 1, 0


class RecipeDeleteSingleWithRecipeWithNoise(_RecipeDelete):
    name, complexity, n_rows, n_rows_noise = "RecipeDeleteSingleWithRecipeWithNoise", 2, 1, 29


class RecipeDeleteMultipleRecipes(_RecipeDelete):
    name, complexity, n_rows, n_rows_noise = "RecipeDeleteMultipleRecipes", 2.4, 3, 0


class RecipeDeleteMultipleRecipesWithNoise(_RecipeDelete):
    name, complexity, n_rows, n_rows_noise = "RecipeDeleteMultipleRecipesWithNoise", 3.4, 3, 29


class RecipeDeleteMultipleRecipesWithConstraint(_RecipeDelete):
    """Every recipe whose directions name the ingredient must go (up to three, among 29 without it)."""

    name, complexity, n_rows, n_rows_noise = "RecipeDeleteMultipleRecipesWithConstraint", 4, 3, 29
    template = "Delete the recipes from Broccoli app that use {ingredient} in the directions."

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        ingredient = rng.choice(INGREDIENTS)
        noise = random_rows(rng, cls.n_rows_noise, random_recipe, keep=lambda r: ingredient not in r["directions"].lower())
        targets: list[dict[str, Any]] = []
        for n in range(cls.n_rows, 0, -1):  # as many as can be drawn, at most three
            try:
                targets = random_rows(rng, n, random_recipe, keep=lambda r: ingredient in r["directions"].lower())
                break
            except ValueError:
                continue
        return {ROWS: targets, NOISE_ROWS: noise, "ingredient": ingredient}

    def check_initial_rows(self, before) -> None:
        """The number of targets varies with the ingredient."""


class RecipeDeleteDuplicateRecipes(_Recipe, DeleteDuplicatesTask):
    name, complexity, n_rows, n_rows_noise = "RecipeDeleteDuplicateRecipes", 1, 1, 5
    template = ("Delete all but one of any recipes in the Broccoli app that are exact duplicates, ensuring at least one "
                "instance of each unique recipe remains")

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        rows = random_rows(rng, cls.n_rows_noise + cls.n_rows, random_recipe)
        target = rows.pop()
        return {ROWS: [target, dict(target)], NOISE_ROWS: rows}


class RecipeDeleteDuplicateRecipes2(RecipeDeleteDuplicateRecipes):
    """Also variations of the target (same title, other fields), which must stay."""

    name, complexity, n_rows, n_rows_noise = "RecipeDeleteDuplicateRecipes2", 2.4, 1, 10

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        noise = random_rows(rng, 7, random_recipe)
        target = noise.pop()
        while len(noise) < cls.n_rows_noise:
            [value] = random_rows(rng, 1, random_recipe, replacement=True, keep=lambda r: r["title"] == target["title"])
            if value != target:
                noise.append(value)
        return {ROWS: [target, dict(target)], NOISE_ROWS: noise}


class RecipeDeleteDuplicateRecipes3(RecipeDeleteDuplicateRecipes):
    """As above with 30 rows, three of them at the top of the list, so the agent must scroll."""

    name, complexity, n_rows, n_rows_noise = "RecipeDeleteDuplicateRecipes3", 3.4, 1, 30

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        noise = random_rows(rng, 22, random_recipe, keep=lambda r: r["title"] != SPECIAL_TITLE)
        target = noise.pop()
        noise += random_rows(rng, 3, random_recipe, keep=lambda r: r["title"] == SPECIAL_TITLE)
        while len(noise) < cls.n_rows_noise:
            [value] = random_rows(rng, 1, random_recipe, replacement=True,
                                  keep=lambda r: r["title"] == target["title"] and r["description"] == target["description"])
            if value != target:
                noise.append(value)
        return {ROWS: [target, dict(target)], NOISE_ROWS: noise}


class _RecipeAdd(_Recipe, AddRowsTask):
    template = "Add the following recipes into the Broccoli app:\n{recipes}"
    n_rows, n_rows_noise = 3, 10
    compare_fields = ("title", "description", "servings", "preparationTime", "source", "ingredients", "directions",
                      "favorite")
    free_form_fields = ("title", "description", "servings", "preparationTime", "source", "ingredients", "directions")

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        targets = random_rows(rng, cls.n_rows, random_recipe)
        # AndroidWorld's filter keeps a noise row unless it shares its title with every target
        noise = random_rows(rng, cls.n_rows_noise, random_recipe,
                            keep=lambda r: any(r["title"] != t["title"] for t in targets))
        return {ROWS: targets, NOISE_ROWS: noise, TEXT_FORMAT: rng.choice(("csv", "text_block"))}

    @property
    def goal(self) -> str:
        return self.template.format(recipes=as_text(self.params[ROWS], self.params[TEXT_FORMAT]))


class RecipeAddSingleRecipe(_RecipeAdd):
    name, complexity, n_rows, n_rows_noise = "RecipeAddSingleRecipe", 2.4, 1, 10


class RecipeAddMultipleRecipes(_RecipeAdd):
    name, complexity, n_rows, n_rows_noise = "RecipeAddMultipleRecipes", 6, 3, 10


class RecipeAddMultipleRecipesFromMarkor(_RecipeAdd):
    name, complexity, n_rows, n_rows_noise = "RecipeAddMultipleRecipesFromMarkor", 6, 3, 10
    app_names = (APP, "markor")
    template = "Add the recipes from recipes.txt in Markor to the Broccoli recipe app."

    @property
    def goal(self) -> str:
        return self.template.format(**self.params)

    def note_rows(self) -> list[dict[str, Any]]:
        return list(self.params[ROWS])

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_directory(MARKOR)
        device.write_file(f"{MARKOR}/recipes.txt", as_text(self.note_rows(), self.params[TEXT_FORMAT]).encode())
        device.close_app("markor")

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_directory(MARKOR)


class RecipeAddMultipleRecipesFromMarkor2(RecipeAddMultipleRecipesFromMarkor):
    """Only the recipes with the given preparation time, among 43 in the note."""

    name, complexity, n_rows, n_rows_noise = "RecipeAddMultipleRecipesFromMarkor2", 6, 3, 40
    template = ("Add the recipes from recipes.txt in Markor that take {prep_time} to prepare into the Broccoli recipe "
                "app.")

    @classmethod
    def generate_random_params(cls, rng: random.Random) -> dict[str, Any]:
        prep_time = rng.choice(PREP_TIMES)
        targets = random_rows(rng, cls.n_rows, random_recipe, keep=lambda r: r["preparationTime"] == prep_time)
        noise = random_rows(rng, cls.n_rows_noise, random_recipe, keep=lambda r: r["preparationTime"] != prep_time)
        return {ROWS: targets, NOISE_ROWS: noise, TEXT_FORMAT: rng.choice(("csv", "text_block")), "prep_time": prep_time}

    def note_rows(self) -> list[dict[str, Any]]:
        rows = list(self.params[ROWS]) + list(self.params[NOISE_ROWS])
        self.rng.shuffle(rows)
        return rows


class RecipeAddMultipleRecipesFromImage(_RecipeAdd):
    name, complexity, n_rows, n_rows_noise = "RecipeAddMultipleRecipesFromImage", 6, 3, 10
    app_names = (APP, "simple gallery pro")
    template = "Add the recipes from recipes.jpg in Simple Gallery Pro to the Broccoli recipe app."

    @property
    def goal(self) -> str:
        return self.template

    def initialize_task(self, device: Device) -> None:
        super().initialize_task(device)
        device.clear_device_storage()
        device.write_file(f"{GALLERY}/recipes.jpg", media.text_image(as_text(self.params[ROWS], "text_block", 60)))
        device.close_app("simple gallery pro")

    def tear_down(self, device: Device) -> None:
        super().tear_down(device)
        device.clear_device_storage()


TASKS = (RecipeDeleteSingleRecipe, RecipeDeleteSingleWithRecipeWithNoise, RecipeDeleteMultipleRecipes,
         RecipeDeleteMultipleRecipesWithNoise, RecipeDeleteMultipleRecipesWithConstraint, RecipeDeleteDuplicateRecipes,
         RecipeDeleteDuplicateRecipes2, RecipeDeleteDuplicateRecipes3, RecipeAddSingleRecipe, RecipeAddMultipleRecipes,
         RecipeAddMultipleRecipesFromMarkor, RecipeAddMultipleRecipesFromMarkor2, RecipeAddMultipleRecipesFromImage)

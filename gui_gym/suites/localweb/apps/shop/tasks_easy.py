"""Easy shop tasks (2-5 oracle steps): find one product and act on it, or read a fact."""

from __future__ import annotations

import random
from typing import Any, Callable, Iterator

from gui_gym.actions import Action
from gui_gym.suites.localweb.answers import answer_matches
from gui_gym.suites.localweb.apps.shop.base import (ShopTemplate, describe_options, happened, open_product, pick, shop,
                                                    variants, visited)
from gui_gym.suites.localweb.apps.shop.data import add_line, money, product, the
from gui_gym.suites.localweb.oracle_ui import OracleUI
from gui_gym.suites.localweb.templates import World


class AddToCart(ShopTemplate):
    template_id = "shop.add-to-cart"
    difficulty = "easy"
    start_page_questions = True

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        prod = pick(rng, [p for p in shop(world)["products"] if p["stock"] and not p["sizes"]], "product without sizes")
        return {"product": prod["id"], "name": prod["name"]}

    @property
    def instruction(self) -> str:
        return f"Add {the(self.params['name'])} to your cart."

    def evaluate(self, world: World, answer: str | None) -> float:
        return float({ln["product"] for ln in shop(world)["cart"]} == {self.params["product"]})

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        pid = self.params["product"]
        return [("opened the product's page", lambda w: visited(w, f"/product/{pid}")),
                ("added the product to the cart", lambda w: happened(w, "cart_add", product=pid))]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        yield from open_product(ui, self.params["name"])
        yield from ui.click("#add-to-cart")

    def expert_plan(self) -> list[str]:
        return [f"Type '{self.params['name']}' in the search box", "Pick the product from the suggestions",
                "Click 'Add to cart'"]


class ProductInfo(ShopTemplate):
    template_id = "shop.product-info"
    difficulty = "easy"
    start_page_questions = True
    answer_required = True
    FIELDS = {"price": "What does {name} cost? Answer with the price.",
              "stock": "How many units of {name} are in stock? Answer with a number.",
              "rating": "What is the average customer rating of {name}? Answer with the number of stars."}

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        prod = pick(rng, [p for p in shop(world)["products"] if p["stock"]], "product in stock")
        field = rng.choice(sorted(self.FIELDS))
        expected = {"price": money(prod["price"]), "stock": str(prod["stock"]), "rating": str(prod["rating"])}[field]
        return {"product": prod["id"], "name": prod["name"], "field": field, "expected": expected}

    @property
    def instruction(self) -> str:
        return self.FIELDS[self.params["field"]].format(name=the(self.params["name"]))

    def evaluate(self, world: World, answer: str | None) -> float:
        return float(answer_matches(answer, self.params["expected"], question=self.instruction))

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        pid = self.params["product"]
        return [("opened the product's page", lambda w: visited(w, f"/product/{pid}"))]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        yield from open_product(ui, self.params["name"])
        if self.params["field"] == "price":
            value = ui.text("#product-price")
        elif self.params["field"] == "stock":
            value = "".join(ch for ch in ui.text("#product-stock") if ch.isdigit())
        else:
            value = ui.text(".product-info .rating-value")
        yield ui.answer(value)

    def expert_plan(self) -> list[str]:
        return [f"Search for '{self.params['name']}' and open it from the suggestions",
                f"Read the {self.params['field']} on the product page", "Answer with it"]


class AddToWishlist(ShopTemplate):
    template_id = "shop.add-to-wishlist"
    difficulty = "easy"
    start_page_questions = True

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        prod = pick(rng, shop(world)["products"], "product")
        return {"product": prod["id"], "name": prod["name"]}

    @property
    def instruction(self) -> str:
        return f"Save {the(self.params['name'])} to your wishlist."

    def evaluate(self, world: World, answer: str | None) -> float:
        return float(shop(world)["wishlist"] == [self.params["product"]])

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        pid = self.params["product"]
        return [("opened the product's page", lambda w: visited(w, f"/product/{pid}")),
                ("saved the product to the wishlist", lambda w: happened(w, "wishlist_add", product=pid))]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        yield from open_product(ui, self.params["name"])
        yield from ui.click("#add-to-wishlist")

    def expert_plan(self) -> list[str]:
        return [f"Search for '{self.params['name']}' and open it from the suggestions", "Click 'Add to wishlist'"]


class RemoveFromCart(ShopTemplate):
    """The cart holds two variants of one product and something else; one variant must go."""

    template_id = "shop.remove-from-cart"
    difficulty = "easy"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        products = shop(world)["products"]
        twin = pick(rng, [p for p in products if p["stock"] >= 2 and len(p["colours"]) >= 2], "product with colours")
        other = pick(rng, [p for p in products if p["stock"] and p["id"] != twin["id"]], "second product")
        colours = rng.sample(twin["colours"], 2)
        size = rng.choice(twin["sizes"]) if twin["sizes"] else None
        lines = [(twin["id"], colours[0], size, 1), (other["id"], other["colours"][0] if other["colours"] else None,
                                                     other["sizes"][0] if other["sizes"] else None, 1),
                 (twin["id"], colours[1], size, 1)]
        return {"lines": lines, "remove": 2 * rng.randrange(2), "name": twin["name"]}

    def prepare(self, world: World) -> None:
        state = shop(world)
        for pid, colour, size, qty in self.params["lines"]:
            add_line(state, product(state, pid), colour, size, qty)

    @property
    def _target(self) -> tuple[str, str | None, str | None, int]:
        return tuple(self.params["lines"][self.params["remove"]])

    @property
    def instruction(self) -> str:
        _, colour, size, _ = self._target
        return f"Remove {the(self.params['name'])} {describe_options(colour, size)} from your cart; keep everything else."

    def evaluate(self, world: World, answer: str | None) -> float:
        keep = [tuple(line) for i, line in enumerate(self.params["lines"]) if i != self.params["remove"]]
        return float(variants(shop(world)["cart"]) == sorted(keep))

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        pid, colour, size, _ = self._target
        return [("opened the cart", lambda w: visited(w, "/cart")),
                ("removed the right variant", lambda w: happened(w, "cart_remove", product=pid, colour=colour, size=size))]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        pid, colour, size, _ = self._target
        yield from ui.click("#cart-link")
        yield from ui.click(f"tr.cart-line[data-product='{pid}'][data-colour='{colour}'][data-size='{size or ''}'] .remove")

    def expert_plan(self) -> list[str]:
        _, colour, size, _ = self._target
        return ["Open the cart", f"Click 'Remove' on the row of {self.params['name']} {describe_options(colour, size)}"]

"""Medium shop tasks (6-12 oracle steps): filters and sorting, product options and quantity,
promo codes compared on the Deals page, cancelling an order through its dialog."""

from __future__ import annotations

import random
from typing import Any, Callable, Iterator

from gui_gym.actions import Action
from gui_gym.errors import TaskConfigError
from gui_gym.suites.localweb.answers import answer_matches
from gui_gym.suites.localweb.apps.shop.base import (ShopTemplate, brand_alone, buy_now, describe_options,
                                                    filter_category, happened, listed, listing, open_product, pick,
                                                    shop, sort_by, variants, visited)
from gui_gym.suites.localweb.apps.shop.data import (CANCEL_REASONS, CATEGORIES, PAGE_SIZE, add_line, discount, line_for,
                                                    product, promo_error, the)
from gui_gym.suites.localweb.apps.shop.views_browse import slug, suggestions
from gui_gym.suites.localweb.oracle_ui import OracleUI
from gui_gym.suites.localweb.templates import World


def _brand_groups(world: World, min_size: int) -> list[tuple[str, str, list[dict[str, Any]]]]:
    """(category, brand, its products) for every brand with at least `min_size` products in a category."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for p in shop(world)["products"]:
        groups.setdefault((p["category"], p["brand"]), []).append(p)
    return [(cat, brand, items) for (cat, brand), items in sorted(groups.items()) if len(items) >= min_size]


class CheapestInCategory(ShopTemplate):
    template_id = "shop.cheapest-in-category"
    difficulty = "medium"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        choices = []
        for cat, brand, items in _brand_groups(world, 2):
            prices = sorted(p["price"] for p in items if p["stock"])
            if prices and (len(prices) == 1 or prices[0] < prices[1]):
                choices.append((cat, brand, min((p for p in items if p["stock"]), key=lambda p: p["price"])))
        cat, brand, target = pick(rng, choices, "brand with a unique cheapest product")
        size = rng.choice(target["sizes"]) if target["sizes"] else None
        return {"category": cat, "brand": brand, "product": target["id"], "size": size}

    @property
    def instruction(self) -> str:
        size = f", in size {self.params['size']}" if self.params["size"] else ""
        return (f"Find the cheapest {self.params['brand']} product in {CATEGORIES[self.params['category']]['title']} "
                f"that is in stock and add it to your cart{size}.")

    def evaluate(self, world: World, answer: str | None) -> float:
        lines = [(ln["product"], ln["size"]) for ln in shop(world)["cart"]]
        return float(lines == [(self.params["product"], self.params["size"])])

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        cat, pid, brand = self.params["category"], self.params["product"], self.params["brand"]
        return [("filtered the category by the brand", lambda w: listed(w, cat, brand)),
                ("sorted by price, low to high", lambda w: listed(w, cat, brand, sort="price-asc")),
                ("opened the cheapest product", lambda w: visited(w, f"/product/{pid}")),
                ("added it to the cart", lambda w: happened(w, "cart_add", product=pid, size=self.params["size"]))]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        yield from filter_category(ui, self.params["category"], brand_slug=slug(self.params["brand"]), instock=True)
        yield from sort_by(ui, "price-asc")
        yield from ui.click(".product-card")
        yield from buy_now(ui, size=self.params["size"])

    def expert_plan(self) -> list[str]:
        return [f"Open {CATEGORIES[self.params['category']]['title']} in the category bar",
                f"Tick the brand {self.params['brand']} and 'In stock only' in the filters",
                "Sort by 'Price: low to high'", "Open the first product"]\
            + ([f"Choose size {self.params['size']}"] if self.params["size"] else []) + ["Click 'Add to cart'"]


class VariantQuantity(ShopTemplate):
    template_id = "shop.variant-quantity"
    difficulty = "medium"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        prod = pick(rng, [p for p in shop(world)["products"] if p["sizes"] and len(p["colours"]) >= 2 and p["stock"] >= 4],
                    "product with colours, sizes and stock")
        return {"product": prod["id"], "name": prod["name"], "colour": rng.choice(prod["colours"]),
                "size": rng.choice(prod["sizes"]), "qty": rng.randint(2, 4)}

    @property
    def instruction(self) -> str:
        p = self.params
        return f"Put {p['qty']} of {the(p['name'])} {describe_options(p['colour'], p['size'])} in your cart."

    def evaluate(self, world: World, answer: str | None) -> float:
        p = self.params
        return float(variants(shop(world)["cart"]) == [(p["product"], p["colour"], p["size"], p["qty"])])

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        p = self.params
        variant = {"product": p["product"], "colour": p["colour"], "size": p["size"]}
        return [("searched the catalogue", self._search_showed_it),
                ("opened the product's page", lambda w: visited(w, f"/product/{p['product']}")),
                ("added the right colour and size", lambda w: happened(w, "cart_add", **variant)),
                ("has the right quantity in the cart", lambda w: variants(shop(w)["cart"])
                 == [(p["product"], p["colour"], p["size"], p["qty"])])]

    def _search_showed_it(self, world: World) -> bool:
        """A search showed the product: among the search box's suggestions, or on the page of
        search results loaded (typing one letter suggests other products and finds nothing)."""
        for e in shop(world)["log"]:
            q = e["query"].get("q", "")
            if e["path"] == "/api/suggest" and self.params["name"] in (s["label"] for s in suggestions(shop(world), q)):
                return True
            if e["path"] == "/" and q.strip():
                view = listing(world, e)
                shown = view["items"][(view["page"] - 1) * PAGE_SIZE:view["page"] * PAGE_SIZE]
                if any(item["id"] == self.params["product"] for item in shown):
                    return True
        return False

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        p = self.params
        yield from open_product(ui, p["name"])
        yield from buy_now(ui, p["colour"], p["size"], p["qty"])

    def expert_plan(self) -> list[str]:
        p = self.params
        return [f"Search for '{p['name']}' and open it", f"Choose colour {p['colour']} and size {p['size']}",
                f"Set the quantity to {p['qty']}", "Click 'Add to cart'"]


class FilterCount(ShopTemplate):
    template_id = "shop.filter-count"
    difficulty = "medium"
    answer_required = True

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        choices = []
        for cat, brand, items in _brand_groups(world, 3):
            prices = sorted(p["price"] for p in items)
            for k in range(1, len(prices)):
                dollars = -(-prices[k - 1] // 100)
                if dollars * 100 < prices[k]:
                    choices.append((cat, brand, dollars, k))
        cat, brand, dollars, count = pick(rng, choices, "brand whose prices can be split")
        return {"category": cat, "brand": brand, "max": dollars, "count": count}

    @property
    def instruction(self) -> str:
        p = self.params
        return (f"How many {p['brand']} products in {CATEGORIES[p['category']]['title']} cost ${p['max']} or less "
                "(in stock or not)? Answer with a number.")

    def evaluate(self, world: World, answer: str | None) -> float:
        return float(answer_matches(answer, self.params["count"], question=self.instruction))

    def _price_filtered(self, world: World) -> bool:
        for e in shop(world)["log"]:
            try:
                at_most = float(e["query"].get("max", "").lstrip("$")) == self.params["max"]
            except ValueError:
                continue
            if at_most and brand_alone(world, e, self.params["category"], self.params["brand"]):
                return True
        return False

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        cat, brand = self.params["category"], self.params["brand"]
        return [("opened the category", lambda w: visited(w, "/", cat=cat)),
                ("filtered by the brand", lambda w: listed(w, cat, brand)),
                ("filtered by the maximum price", self._price_filtered)]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        p = self.params
        yield from filter_category(ui, p["category"], brand_slug=slug(p["brand"]), max_price=str(p["max"]))
        yield ui.answer(ui.text("#result-count").split()[0])

    def expert_plan(self) -> list[str]:
        p = self.params
        return [f"Open {CATEGORIES[p['category']]['title']}", f"Tick the brand {p['brand']}",
                f"Enter {p['max']} as the maximum price and apply it", "Read the number of products found and answer it"]


class BestPromo(ShopTemplate):
    template_id = "shop.best-promo"
    difficulty = "medium"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        state = shop(world)
        stocked = [p for p in state["products"] if p["stock"]]
        codes = [c for c in state["promos"] if not c["expired"] and c["kind"] != "shipping"]
        for _ in range(200):
            extra = rng.choice([p for p in stocked if not p["sizes"]])
            held = rng.sample([p for p in stocked if p["id"] != extra["id"]], rng.randint(1, 2))
            lines = [line_for(p, p["colours"][0] if p["colours"] else None, p["sizes"][0] if p["sizes"] else None, 1)
                     for p in held + [extra]]
            saving = sorted(((discount(c, lines), c["code"]) for c in codes if promo_error(c, c["code"], lines) is None),
                            reverse=True)
            if saving and saving[0][0] >= 600 and (len(saving) == 1 or saving[0][0] - saving[1][0] >= 100):
                return {"product": extra["id"], "name": extra["name"], "code": saving[0][1],
                        "held": [[ln["product"], ln["colour"], ln["size"]] for ln in lines[:-1]]}
        raise TaskConfigError("the shop world of this seed has no cart where one promo code clearly wins")

    def prepare(self, world: World) -> None:
        state = shop(world)
        for pid, colour, size in self.params["held"]:
            add_line(state, product(state, pid), colour, size, 1)

    @property
    def instruction(self) -> str:
        return (f"Add {the(self.params['name'])} to your cart, then apply the promo code from the Deals page that "
                "takes the most off your order (delivery aside).")

    def evaluate(self, world: World, answer: str | None) -> float:
        state = shop(world)
        want = sorted([pid for pid, _, _ in self.params["held"]] + [self.params["product"]])
        return float(sorted(ln["product"] for ln in state["cart"]) == want and state["promo"] == self.params["code"])

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        pid, code = self.params["product"], self.params["code"]
        return [("added the product to the cart", lambda w: happened(w, "cart_add", product=pid)),
                ("read the Deals page", lambda w: visited(w, "/deals")),
                ("applied the best code", lambda w: shop(w)["promo"] == code)]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        yield from open_product(ui, self.params["name"])
        yield from ui.click("#add-to-cart")
        yield from ui.click(".topbar a[href$='/deals']")
        yield from ui.click("#cart-link")
        yield from ui.type_into("#promo", self.params["code"])
        yield from ui.click("#apply-promo")

    def expert_plan(self) -> list[str]:
        return [f"Search for '{self.params['name']}', open it and add it to the cart", "Open Deals and note the codes",
                "Work out which code saves the most on the cart's items", f"In the cart, apply {self.params['code']}"]


class CancelOrder(ShopTemplate):
    template_id = "shop.cancel-order"
    difficulty = "medium"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        orders = shop(world)["orders"]
        order = pick(rng, [o for o in orders if o["status"] == "Processing"], "processing order")
        first = order["lines"][0]["name"]
        unique = sum(first in (ln["name"] for ln in o["lines"]) for o in orders) == 1
        return {"number": order["number"], "item": first if unique else None, "reason": rng.choice(CANCEL_REASONS)}

    @property
    def instruction(self) -> str:
        p = self.params
        which = f"the order with {the(p['item'])} in it" if p["item"] else f"order {p['number']}"
        return f"Cancel {which} (it has not shipped yet), giving the reason “{p['reason']}”."

    def evaluate(self, world: World, answer: str | None) -> float:
        ok = all((o["status"] == "Cancelled") == (o["number"] == self.params["number"]) for o in shop(world)["orders"])
        return float(ok and happened(world, "cancel", number=self.params["number"], reason=self.params["reason"]))

    def milestones(self) -> list[tuple[str, Callable[[World], bool]]]:
        number, reason = self.params["number"], self.params["reason"]
        return [("opened the order history", lambda w: visited(w, "/orders")),
                ("opened the order", lambda w: visited(w, f"/orders/{number}")),
                ("cancelled it with the reason", lambda w: happened(w, "cancel", number=number, reason=reason))]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        yield from ui.click("#orders-link")
        yield from ui.click(f"a[aria-label='View order {self.params['number']}']")
        yield from ui.click("#cancel-order")
        yield from ui.choose("#cancel-reason", self.params["reason"])
        yield from ui.click("#confirm-cancel")

    def expert_plan(self) -> list[str]:
        return ["Open Orders", "Find the order and open it", "Click 'Cancel order'",
                f"Choose the reason '{self.params['reason']}' in the dialog", "Confirm with 'Cancel order'"]

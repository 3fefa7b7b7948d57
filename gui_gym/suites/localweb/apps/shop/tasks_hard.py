"""Hard shop tasks (13-30 oracle steps): whole purchases through the four-step checkout, each
reached a different way (search with options, order history, filters and sorting, wishlist)."""

from __future__ import annotations

import random
from abc import abstractmethod
from typing import Any, Callable, Iterator

from gui_gym.actions import Action
from gui_gym.suites.localweb.apps.shop.base import (ShopTemplate, buy_now, checkout, describe_options, filter_category,
                                                    happened, lines_match, open_product, pick, placed_orders,
                                                    same_address, shop, sort_by, visited)
from gui_gym.suites.localweb.apps.shop.data import (CATEGORIES, CITIES, DELIVERY, FIRST_NAMES, LAST_NAMES, STREETS,
                                                    line_for, promo_error, the)
from gui_gym.suites.localweb.oracle_ui import OracleUI
from gui_gym.suites.localweb.templates import World

Check = Callable[[World], bool]


class _Purchase(ShopTemplate):
    """A purchase task: success is exactly one new order with the expected lines, address,
    delivery (and payment, promo code when the task names them)."""

    difficulty = "hard"

    @abstractmethod
    def expected_lines(self) -> list[tuple[str, str | None, str | None, int]]:
        """(product, colour or None for any, size, quantity) of the order to place."""

    def address_ok(self, world: World, address: dict[str, str]) -> bool:
        saved = next(a for a in shop(world)["account"]["addresses"] if a["label"] == self.params["address"])
        return same_address(address, saved)

    def order_ok(self, world: World, order: dict[str, Any]) -> bool:
        p = self.params
        return (lines_match(order["lines"], self.expected_lines())
                and self.address_ok(world, order["address"]) and order["delivery"] == p["delivery"]
                and order["payment"] == p.get("payment", order["payment"]) and order["promo"] == p.get("promo"))

    def evaluate(self, world: World, answer: str | None) -> float:
        orders = placed_orders(world)
        return float(len(orders) == 1 and self.order_ok(world, orders[0]))

    def checkout_milestones(self) -> list[tuple[str, Check]]:
        delivery = self.params["delivery"]
        return [("chose the shipping address", lambda w: any(e["type"] == "address" and self.address_ok(w, e)
                                                             for e in shop(w)["events"])),
                ("chose the delivery option", lambda w: happened(w, "delivery", option=delivery)),
                ("placed the right order", lambda w: self.evaluate(w, None) == 1.0)]

    def where(self) -> str:
        p = self.params
        return f"to your {p['address']} address with {DELIVERY[p['delivery']][0].lower()}"


class CheckoutNewAddress(_Purchase):
    template_id = "shop.checkout-new-address"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        products = shop(world)["products"]
        first = pick(rng, [p for p in products if p["sizes"] and p["colours"] and p["stock"]], "sized product")
        second = pick(rng, [p for p in products if not p["sizes"] and p["colours"] and p["stock"]], "coloured product")
        address = {"name": f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}",
                   "street": f"{rng.randint(2, 480)} {rng.choice(STREETS)}", "city": rng.choice(CITIES),
                   "postcode": f"{rng.randint(10000, 99999)}"}
        return {"items": [[first["id"], first["name"], rng.choice(first["colours"]), rng.choice(first["sizes"])],
                          [second["id"], second["name"], rng.choice(second["colours"]), None]],
                "address": address, "delivery": rng.choice(("standard", "express")), "payment": "card"}

    def expected_lines(self) -> list[tuple[str, str | None, str | None, int]]:
        return [(pid, colour, size, 1) for pid, _, colour, size in self.params["items"]]

    def address_ok(self, world: World, address: dict[str, str]) -> bool:
        return address.get("label") == "New" and same_address(address, self.params["address"])

    @property
    def instruction(self) -> str:
        (_, n1, c1, s1), (_, n2, c2, _) = self.params["items"]
        a = self.params["address"]
        return (f"Buy {the(n1)} {describe_options(c1, s1)} and {the(n2)} {describe_options(c2, None)}, one of each. "
                f"Ship them to a new address: {a['name']}, {a['street']}, {a['city']} {a['postcode']}, with "
                f"{DELIVERY[self.params['delivery']][0].lower()}, paying with your saved card.")

    def milestones(self) -> list[tuple[str, Check]]:
        (p1, _, c1, s1), (p2, _, c2, _) = self.params["items"]
        return [("added the first item with its options", lambda w: happened(w, "cart_add", product=p1, colour=c1, size=s1)),
                ("added the second item in its colour", lambda w: happened(w, "cart_add", product=p2, colour=c2)),
                *self.checkout_milestones()]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        for _, name, colour, size in self.params["items"]:
            yield from open_product(ui, name)
            yield from buy_now(ui, colour, size)
        yield from checkout(ui, self.params["address"], self.params["delivery"])

    def expert_plan(self) -> list[str]:
        (_, n1, c1, s1), (_, n2, c2, _) = self.params["items"]
        return [f"Search for '{n1}', open it, choose {c1} and size {s1}, add to cart",
                f"Search for '{n2}', open it, choose {c2}, add to cart", "Open the cart and proceed to checkout",
                "Choose 'New address' and fill in name, street, city and postcode", "Continue",
                f"Choose {DELIVERY[self.params['delivery']][0]}, continue", "Keep the saved card, review, place the order"]


class ReorderWithChange(_Purchase):
    template_id = "shop.reorder-with-change"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        state = shop(world)
        stock = {p["id"]: p["stock"] for p in state["products"]}
        orders = [o for o in state["orders"] if o["status"] == "Delivered" and len(o["lines"]) >= 2
                  and all(stock[ln["product"]] >= max(4, ln["qty"]) for ln in o["lines"])]
        order = pick(rng, orders, "delivered order of several items in stock")
        change = rng.randrange(len(order["lines"]))
        qty = rng.choice([n for n in (3, 4) if n != order["lines"][change]["qty"]])
        return {"number": order["number"],
                "lines": [[ln["product"], ln["colour"], ln["size"], ln["qty"]] for ln in order["lines"]],
                "change": change, "name": order["lines"][change]["name"], "qty": qty,
                "page": state["orders"].index(order) // 5 + 1,
                "address": rng.choice(("Home", "Work")), "delivery": rng.choice(("standard", "express"))}

    def expected_lines(self) -> list[tuple[str, str | None, str | None, int]]:
        lines = [tuple(ln) for ln in self.params["lines"]]
        pid, colour, size, _ = lines[self.params["change"]]
        lines[self.params["change"]] = (pid, colour, size, self.params["qty"])
        return lines

    @property
    def instruction(self) -> str:
        p = self.params
        return (f"Order everything from your order {p['number']} again, but with {p['qty']} of {the(p['name'])} this "
                f"time. Ship it {self.where()}.")

    def milestones(self) -> list[tuple[str, Check]]:
        p = self.params
        pid = p["lines"][p["change"]][0]
        return [("opened the old order", lambda w: visited(w, f"/orders/{p['number']}")),
                ("put the order's items back in the cart", lambda w: happened(w, "reorder", number=p["number"])),
                ("changed the quantity", lambda w: happened(w, "cart_update", product=pid, qty=p["qty"])),
                *self.checkout_milestones()]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        p = self.params
        pid, colour, size, _ = p["lines"][p["change"]]
        yield from ui.click("#orders-link")
        if p["page"] > 1:
            yield from ui.click(f"a[aria-label='Orders page {p['page']}']")
        yield from ui.click(f"a[aria-label='View order {p['number']}']")
        yield from ui.click("#buy-again")
        row = f"tr.cart-line[data-product='{pid}'][data-colour='{colour or ''}'][data-size='{size or ''}']"
        yield from ui.type_into(f"{row} input.qty", str(p["qty"]), clear=True)
        yield from ui.click(f"{row} button.update")
        yield from checkout(ui, p["address"], p["delivery"], from_cart=True)

    def expert_plan(self) -> list[str]:
        p = self.params
        return ["Open Orders", f"Open order {p['number']}", "Click 'Buy it again'",
                f"In the cart set the quantity of {p['name']} to {p['qty']} and click Update", "Proceed to checkout",
                f"Choose the {p['address']} address", f"Choose {DELIVERY[p['delivery']][0]}", "Review and place the order"]


class BestRatedUnderBudget(_Purchase):
    template_id = "shop.best-rated-under-budget"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        products = shop(world)["products"]
        choices = []
        for cat in CATEGORIES:
            for dollars in range(30, 160, 10):
                fits = sorted((p for p in products if p["category"] == cat and p["stock"] and p["price"] <= dollars * 100),
                              key=lambda p: (-p["rating"], -p["ratings"], p["id"]))
                pricier = [p for p in products if p["category"] == cat and p["price"] > dollars * 100]
                if len(fits) >= 2 and fits[0]["rating"] > fits[1]["rating"] and pricier \
                        and max(p["rating"] for p in pricier) > fits[0]["rating"]:
                    choices.append((cat, dollars, fits[0]))
        cat, dollars, target = pick(rng, choices, "category whose best affordable product is unique")
        return {"category": cat, "max": dollars, "product": target["id"],
                "size": rng.choice(target["sizes"]) if target["sizes"] else None,
                "address": rng.choice(("Home", "Work")), "delivery": rng.choice(("standard", "express")), "payment": "cod"}

    def expected_lines(self) -> list[tuple[str, str | None, str | None, int]]:
        return [(self.params["product"], None, self.params["size"], 1)]

    @property
    def instruction(self) -> str:
        p = self.params
        size = f" (size {p['size']})" if p["size"] else ""
        return (f"Buy the best-rated {CATEGORIES[p['category']]['title']} product that is in stock and costs at most "
                f"${p['max']}{size}, one piece. Ship it {self.where()} and pay cash on delivery.")

    def milestones(self) -> list[tuple[str, Check]]:
        p = self.params
        return [("sorted the category by rating", lambda w: visited(w, "/", cat=p["category"], sort="rating")),
                ("added the best-rated affordable product", lambda w: happened(w, "cart_add", product=p["product"])),
                *self.checkout_milestones()]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        p = self.params
        yield from filter_category(ui, p["category"], max_price=str(p["max"]), instock=True)
        yield from sort_by(ui, "rating")
        yield from ui.click(".product-card")
        yield from buy_now(ui, size=p["size"])
        yield from checkout(ui, p["address"], p["delivery"], payment="cod")

    def expert_plan(self) -> list[str]:
        p = self.params
        return [f"Open {CATEGORIES[p['category']]['title']}", f"Set the maximum price to {p['max']}",
                "Tick 'In stock only'", "Sort by 'Customer rating'", "Open the first product",
                *([f"Choose size {p['size']}"] if p["size"] else []), "Add it to the cart", "Proceed to checkout",
                f"Choose the {p['address']} address, {DELIVERY[p['delivery']][0]}, cash on delivery", "Place the order"]


class WishlistCheckout(_Purchase):
    template_id = "shop.wishlist-checkout"

    def sample_params(self, world: World, rng: random.Random) -> dict[str, Any]:
        state = shop(world)
        plain = [p for p in state["products"] if not p["sizes"]]
        stocked = rng.sample([p for p in plain if p["stock"]], 3)
        gone = pick(rng, [p for p in plain if not p["stock"]], "product out of stock")
        wishlist = [p["id"] for p in stocked] + [gone["id"]]
        rng.shuffle(wishlist)
        lines = [line_for(p, p["colours"][0] if p["colours"] else None, None, 1) for p in stocked]
        codes = [c["code"] for c in state["promos"] if c["kind"] != "shipping" and promo_error(c, c["code"], lines) is None]
        return {"wishlist": wishlist, "lines": [[ln["product"], None, None, 1] for ln in lines],
                "promo": pick(rng, codes, "promo code for the wishlist"),
                "address": rng.choice(("Home", "Work")), "delivery": rng.choice(("standard", "express"))}

    def prepare(self, world: World) -> None:
        shop(world)["wishlist"] = list(self.params["wishlist"])

    def expected_lines(self) -> list[tuple[str, str | None, str | None, int]]:
        return [tuple(ln) for ln in self.params["lines"]]

    @property
    def instruction(self) -> str:
        return (f"Buy one of each item on your wishlist that is in stock, using the promo code {self.params['promo']}. "
                f"Ship the order {self.where()}.")

    def milestones(self) -> list[tuple[str, Check]]:
        pids = [ln[0] for ln in self.params["lines"]]
        return [("opened the wishlist", lambda w: visited(w, "/wishlist")),
                ("added every in-stock item", lambda w: all(happened(w, "cart_add", product=pid) for pid in pids)),
                ("applied the promo code", lambda w: happened(w, "promo", code=self.params["promo"])),
                *self.checkout_milestones()]

    def oracle(self, ui: OracleUI) -> Iterator[Action]:
        yield from ui.click("#wishlist-link")
        for pid, _, _, _ in self.params["lines"]:
            yield from ui.click(f"button.wish-add[data-product='{pid}']")
        yield from ui.click("#cart-link")
        yield from ui.type_into("#promo", self.params["promo"])
        yield from ui.click("#apply-promo")
        yield from checkout(ui, self.params["address"], self.params["delivery"], from_cart=True)

    def expert_plan(self) -> list[str]:
        p = self.params
        return ["Open the wishlist", "Click 'Add to cart' on every item that is in stock", "Open the cart",
                f"Apply the code {p['promo']}", "Proceed to checkout", f"Choose the {p['address']} address",
                f"Choose {DELIVERY[p['delivery']][0]}", "Keep the saved card and place the order"]

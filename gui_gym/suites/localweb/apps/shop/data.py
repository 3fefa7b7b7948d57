"""The shop's world, generated from the seed: catalogue, promo codes, account, past orders.

Everything an episode starts from is a pure function of the seed, built from the small
vocabularies below (no external data). Prices are integer cents so totals are exact; the
evaluators and the pages read the same numbers through the helpers at the end.
"""

from __future__ import annotations

import random
from typing import Any

from gui_gym.suites.localweb.framework import seeded

CATEGORIES: dict[str, dict[str, Any]] = {
    "electronics": {"title": "Electronics", "price": (1900, 24900), "sizes": (),
                    "colours": ("Black", "White", "Silver", "Blue"),
                    "nouns": ("Wireless Headphones", "Bluetooth Speaker", "USB-C Charger", "Mechanical Keyboard",
                              "Wireless Mouse", "HD Webcam", "Power Bank", "Smart Watch"),
                    "brands": ("Auralis", "Voltix", "Nexon", "Kestrel", "Lumio", "Orbitek")},
    "clothing": {"title": "Clothing", "price": (1500, 12900), "sizes": ("XS", "S", "M", "L", "XL"),
                 "colours": ("Black", "Navy", "Grey", "Olive", "Red", "White"),
                 "nouns": ("T-Shirt", "Hoodie", "Rain Jacket", "Slim Jeans", "Wool Sweater", "Chino Shorts"),
                 "brands": ("Nordwind", "Fieldcraft", "Urbana", "Pinecrest", "Solace", "Marlowe")},
    "shoes": {"title": "Shoes", "price": (3900, 17900), "sizes": ("7", "8", "9", "10", "11"),
              "colours": ("Black", "White", "Brown", "Grey", "Blue"),
              "nouns": ("Running Shoes", "Trail Sneakers", "Leather Boots", "Canvas Sneakers", "Sandals"),
              "brands": ("Stridewell", "Trekmark", "Kodo", "Fleetfoot", "Basalt", "Ridgeline")},
    "home": {"title": "Home & Kitchen", "price": (900, 14900), "sizes": (),
             "colours": ("White", "Grey", "Sage", "Terracotta"),
             "nouns": ("Ceramic Mug Set", "Electric Kettle", "Desk Lamp", "Throw Pillow", "Chef's Knife",
                       "Cutting Board", "French Press"),
             "brands": ("Hearthly", "Casa Nova", "Oakridge", "Kiln & Co", "Brightnest", "Larder")},
    "sports": {"title": "Sports & Outdoors", "price": (1200, 15900), "sizes": (),
               "colours": ("Black", "Teal", "Orange", "Purple"),
               "nouns": ("Yoga Mat", "Water Bottle", "Hiking Backpack", "Camping Lantern", "Resistance Bands",
                         "Foam Roller"),
               "brands": ("Summitra", "Peakform", "Tidal", "Everfit", "Northtrail", "Vigor")},
    "books": {"title": "Books", "price": (800, 3900), "sizes": (), "colours": (),
              "nouns": ("Harbor", "Orchard", "Lantern", "River", "Compass", "Garden", "Winter", "Signal"),
              "brands": ("Harbor Press", "Quill House", "Bluebird Books", "Meridian", "Foxglove Press")},
}
ADJECTIVES = ("Pro", "Lite", "Max", "Air", "Classic", "Ultra", "Core", "Flex", "Nova", "Prime", "Edge", "Zen")
BOOK_ADJECTIVES = ("Silent", "Hidden", "Last", "Golden", "Quiet", "Broken", "Distant", "Secret", "Midnight", "Painted")
FIRST_NAMES = ("Jordan", "Avery", "Riley", "Morgan", "Casey", "Taylor", "Quinn", "Jamie", "Robin", "Skyler",
               "Emerson", "Hayden", "Rowan", "Sasha", "Devon", "Harper")
LAST_NAMES = ("Miller", "Okafor", "Lindqvist", "Moreau", "Tanaka", "Alvarez", "Novak", "Hughes", "Patel",
              "Fischer", "Kowalski", "Brennan", "Santos", "Whitaker")
STREETS = ("Elm Street", "Maple Avenue", "Harbor Road", "Cedar Lane", "Station Road", "Mill Street",
           "Orchard Way", "Lakeview Drive", "Park Terrace", "Willow Court")
CITIES = ("Springfield", "Riverton", "Fairview", "Lakewood", "Brookfield", "Ashford", "Kingsport", "Milton")
REVIEW_LINES = {
    5: ("Exactly what I hoped for.", "Excellent quality, would buy again.", "Love it, works perfectly."),
    4: ("Very good, small quibbles.", "Solid value for the price.", "Does the job well."),
    3: ("Okay, nothing special.", "Average; expected a bit more.", "Fine for occasional use."),
    2: ("Disappointing after a week.", "Not as described.", "Feels cheap."),
    1: ("Broke quickly.", "Would not recommend.", "Returned it."),
}
DELIVERY = {"standard": ("Standard delivery", "5-7 business days", 499),
            "express": ("Express delivery", "1-2 business days", 1299),
            "pickup": ("Store pickup", "Ready tomorrow at the Riverton store", 0)}
PAYMENT = {"card": "Saved card", "cod": "Cash on delivery"}
CANCEL_REASONS = ("Ordered by mistake", "Found a better price", "Delivery is too slow", "Changed my mind")
FREE_STANDARD_FROM = 7500
PAGE_SIZE = 12
ORDERS_PAGE_SIZE = 5


def initial_state(seed: int) -> dict[str, Any]:
    """A fresh shop for one episode: a pure function of `seed`."""
    products = _products(seed)
    rng = seeded(seed, "shop.account")
    first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    addresses = [_address(rng, label, f"{first} {last}") for label in ("Home", "Work")]
    state: dict[str, Any] = {
        "products": products,
        "promos": _promos(seed),
        "account": {"name": f"{first} {last}", "email": f"{first.lower()}.{last.lower()}@example.com",
                    "card": f"Visa ending {rng.randrange(1000, 10000)}", "addresses": addresses},
        "cart": [], "next_line": 1, "promo": None, "wishlist": [],
        "checkout": {"address": None, "delivery": None, "payment": None},
        "orders": [], "events": [],
    }
    state["orders"] = _past_orders(seed, state)
    state["next_order"] = max(int(o["number"][3:]) for o in state["orders"]) + seeded(seed, "shop.next").randint(11, 97)
    return state


def _products(seed: int) -> list[dict[str, Any]]:
    rng = seeded(seed, "shop.catalogue")
    products: list[dict[str, Any]] = []
    names: set[str] = set()
    for cat, spec in CATEGORIES.items():
        brands = rng.sample(spec["brands"], 4)
        for _ in range(rng.randint(13, 17)):
            brand = rng.choice(brands)
            while True:
                if cat == "books":
                    name = f"The {rng.choice(BOOK_ADJECTIVES)} {rng.choice(spec['nouns'])}"
                else:
                    name = f"{brand} {rng.choice(ADJECTIVES)} {rng.choice(spec['nouns'])}"
                if name not in names:
                    break
            names.add(name)
            low, high = spec["price"]
            cents = rng.randrange(low // 100, high // 100) * 100 + rng.choice((99, 49, 0, 95))
            colours = sorted(rng.sample(spec["colours"], rng.randint(2, min(4, len(spec["colours"]))))) \
                if spec["colours"] and rng.random() < 0.8 else []
            rating = round(rng.uniform(2.4, 5.0), 1)
            stock = 0 if rng.random() < 0.15 else rng.randint(1, 40)
            products.append({
                "id": f"p{len(products) + 1:03d}", "name": name, "brand": brand, "category": cat,
                "price": cents, "rating": rating, "ratings": rng.randint(3, 480), "stock": stock,
                "colours": colours, "sizes": list(spec["sizes"]),
                "added": f"2025-{rng.randint(6, 12):02d}-{rng.randint(1, 28):02d}" if rng.random() < 0.5
                else f"2026-{rng.randint(1, 5):02d}-{rng.randint(1, 28):02d}",
                "rank": rng.random(), "reviews": _reviews(rng, rating),
                "description": _description(cat, name, brand),
            })
    return products


def _reviews(rng: random.Random, rating: float) -> list[dict[str, Any]]:
    out = []
    for _ in range(rng.randint(2, 4)):
        stars = max(1, min(5, round(rating + rng.choice((-1, 0, 0, 0, 1)))))
        out.append({"author": f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)[0]}.", "stars": stars,
                    "text": rng.choice(REVIEW_LINES[stars]),
                    "date": f"2026-{rng.randint(1, 5):02d}-{rng.randint(1, 28):02d}"})
    return out


def _description(cat: str, name: str, brand: str) -> str:
    if cat == "books":
        return f"{name} is a novel from {brand}, in paperback, loved by book clubs for its quiet twists."
    return f"The {name} by {brand} is built for everyday use, with a two-year warranty and free returns."


def _promos(seed: int) -> list[dict[str, Any]]:
    rng = seeded(seed, "shop.promos")
    percent, amount, cat_pct = rng.choice((10, 15)), rng.choice((10, 15, 20)), rng.choice((20, 25, 30))
    cat = rng.choice([c for c in CATEGORIES if c != "books"])
    minimum, old = rng.choice((6000, 8000, 10000)), rng.choice((20, 25))
    return [
        {"code": f"{rng.choice(('SAVE', 'HELLO', 'WELCOME'))}{percent}", "kind": "percent", "value": percent,
         "min": 0, "category": None, "expired": False},
        {"code": f"{rng.choice(('TAKE', 'BONUS', 'EXTRA'))}{amount}", "kind": "amount", "value": amount * 100,
         "min": minimum, "category": None, "expired": False},
        {"code": f"{cat.upper()}{cat_pct}", "kind": "category", "value": cat_pct, "min": 0, "category": cat,
         "expired": False},
        {"code": "FREESHIP", "kind": "shipping", "value": 0, "min": 0, "category": None, "expired": False},
        {"code": f"{rng.choice(('WINTER', 'HOLIDAY', 'NEWYEAR'))}{old}", "kind": "percent",
         "value": old, "min": 0, "category": None, "expired": True},
    ]


def _address(rng: random.Random, label: str, name: str) -> dict[str, str]:
    return {"label": label, "name": name, "street": f"{rng.randint(2, 480)} {rng.choice(STREETS)}",
            "city": rng.choice(CITIES), "postcode": f"{rng.randint(10000, 99999)}"}


def _past_orders(seed: int, state: dict[str, Any]) -> list[dict[str, Any]]:
    rng = seeded(seed, "shop.orders")
    orders = []
    numbers = rng.sample(range(100000, 900000), 7)
    statuses = ["Processing", "Processing", "Shipped"] + ["Delivered"] * 4
    for i, number in enumerate(numbers):
        lines = []
        delivered = statuses[i] == "Delivered"  # these can be bought again: keep them in stock
        pool = [p for p in state["products"] if p["stock"] >= 4] if delivered else state["products"]
        for product in rng.sample(pool, rng.randint(2 if delivered else 1, 3)):
            lines.append(line_for(product, rng.choice(product["colours"]) if product["colours"] else None,
                                  rng.choice(product["sizes"]) if product["sizes"] else None, rng.randint(1, 2)))
        address = dict(rng.choice(state["account"]["addresses"]))
        delivery = rng.choice(("standard", "express"))
        orders.append(make_order(f"LW-{number}", f"2026-{5 - i // 2:02d}-{24 - 3 * i:02d}", lines, address,
                                 delivery, "card", None, state, statuses[i]))
    return orders


# ---- reading the state: pages and evaluators share these ----------------------------------

def the(name: str) -> str:
    """A product name after "the" in a sentence ("the Kodo Air Sandals", "The Quiet River")."""
    return name if name.startswith("The ") else f"the {name}"


def money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def product(state: dict[str, Any], pid: str) -> dict[str, Any] | None:
    return next((p for p in state["products"] if p["id"] == pid), None)


def promo(state: dict[str, Any], code: str) -> dict[str, Any] | None:
    return next((p for p in state["promos"] if p["code"] == code.strip().upper()), None)


def line_for(prod: dict[str, Any], colour: str | None, size: str | None, qty: int) -> dict[str, Any]:
    """A cart or order line: a snapshot of the product's name and price at that moment."""
    return {"product": prod["id"], "name": prod["name"], "category": prod["category"], "price": prod["price"],
            "colour": colour, "size": size, "qty": qty}


def find_line(state: dict[str, Any], pid: str, colour: str | None, size: str | None) -> dict[str, Any] | None:
    return next((ln for ln in state["cart"] if (ln["product"], ln["colour"], ln["size"]) == (pid, colour, size)), None)


def add_line(state: dict[str, Any], prod: dict[str, Any], colour: str | None, size: str | None,
             qty: int) -> dict[str, Any]:
    """Put `qty` of a product variant in the cart (merged with the same variant) and return its line."""
    line = find_line(state, prod["id"], colour, size)
    if line is None:
        line = {**line_for(prod, colour, size, 0), "line": state["next_line"]}
        state["next_line"] += 1
        state["cart"].append(line)
    line["qty"] += qty
    return line


def subtotal(lines: list[dict[str, Any]]) -> int:
    return sum(line["price"] * line["qty"] for line in lines)


def discount(code: dict[str, Any] | None, lines: list[dict[str, Any]]) -> int:
    """What `code` takes off these lines (0 when it does not apply)."""
    if code is None or code["expired"] or subtotal(lines) < code["min"]:
        return 0
    if code["kind"] == "percent":
        return round(subtotal(lines) * code["value"] / 100)
    if code["kind"] == "amount":
        return min(code["value"], subtotal(lines))
    if code["kind"] == "category":
        return round(subtotal([ln for ln in lines if ln["category"] == code["category"]]) * code["value"] / 100)
    return 0


def promo_error(code: dict[str, Any] | None, typed: str, lines: list[dict[str, Any]]) -> str | None:
    """Why `typed` cannot be applied to these lines, or None when it can."""
    if code is None:
        return f"We don't recognise the code '{typed.strip()}'."
    if code["expired"]:
        return f"The code {code['code']} has expired."
    if subtotal(lines) < code["min"]:
        return f"{code['code']} needs a subtotal of at least {money(code['min'])} (yours is {money(subtotal(lines))})."
    if code["kind"] == "category" and not any(ln["category"] == code["category"] for ln in lines):
        return f"{code['code']} only applies to {CATEGORIES[code['category']]['title']}, and your cart has none."
    return None


def shipping(delivery: str | None, code: dict[str, Any] | None, lines: list[dict[str, Any]]) -> int:
    if delivery is None:
        return 0
    if delivery == "standard" and ((code is not None and code["kind"] == "shipping")
                                   or subtotal(lines) >= FREE_STANDARD_FROM):
        return 0
    return DELIVERY[delivery][2]


def make_order(number: str, date: str, lines: list[dict[str, Any]], address: dict[str, str], delivery: str,
               payment: str, code: dict[str, Any] | None, state: dict[str, Any],
               status: str = "Processing") -> dict[str, Any]:
    off = discount(code, lines)
    ship = shipping(delivery, code, lines)
    return {"number": number, "date": date, "status": status, "lines": [dict(ln) for ln in lines],
            "address": dict(address), "delivery": delivery, "payment": payment,
            "card": state["account"]["card"] if payment == "card" else None,
            "promo": code["code"] if code else None, "subtotal": subtotal(lines), "discount": off,
            "shipping": ship, "total": subtotal(lines) - off + ship, "cancel_reason": None}

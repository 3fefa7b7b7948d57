"""Browsing pages: the catalogue (search, category, filters, sort, pagination), product pages,
the wishlist and the deals page, plus the search box's suggestions.

The catalogue's filters live in the URL (a GET form that submits itself on change), so each
filtered view is a page an agent can reach, reload or go back to, as on a real shop.
"""

from __future__ import annotations

import re
from typing import Any

from gui_gym.suites.localweb.apps.shop.data import CATEGORIES, PAGE_SIZE, money, product
from gui_gym.suites.localweb.apps.shop.views import BASE, error, shell, stars, stock_text, thumb, url
from gui_gym.suites.localweb.framework import Request, Response, esc, notice

SORTS = {"featured": "Featured", "price-asc": "Price: low to high", "price-desc": "Price: high to low",
         "rating": "Customer rating", "newest": "Newest arrivals"}
RATINGS = {"": "Any rating", "4": "4★ & up", "3": "3★ & up", "2": "2★ & up"}


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def matches_query(prod: dict[str, Any], q: str) -> bool:
    haystack = f"{prod['name']} {prod['brand']} {CATEGORIES[prod['category']]['title']}".lower()
    return all(word in haystack for word in q.lower().split())


def _price_arg(request: Request, name: str) -> tuple[int | None, str]:
    raw = request.query.get(name, "").strip().lstrip("$")
    if not raw:
        return None, ""
    try:
        return round(float(raw) * 100), ""
    except ValueError:
        return None, f"'{raw}' is not a price: enter a number such as 25 or 19.99."


def query_products(state: dict[str, Any], request: Request) -> dict[str, Any]:
    """The catalogue view a listing URL asks for: scope (category, search), filters, sort, page."""
    cat = request.query.get("cat", "") if request.query.get("cat", "") in CATEGORIES else ""
    q = request.query.get("q", "").strip()
    scope = [p for p in state["products"] if (not cat or p["category"] == cat) and (not q or matches_query(p, q))]
    brands = sorted({p["brand"] for p in scope})
    chosen = [b for b in brands if request.query.get(f"brand-{slug(b)}")]
    low, low_error = _price_arg(request, "min")
    high, high_error = _price_arg(request, "max")
    rating = request.query.get("rating", "") if request.query.get("rating", "") in RATINGS else ""
    instock = bool(request.query.get("instock"))
    items = [p for p in scope if (not chosen or p["brand"] in chosen) and (low is None or p["price"] >= low)
             and (high is None or p["price"] <= high) and (not rating or p["rating"] >= int(rating))
             and (not instock or p["stock"] > 0)]
    sort = request.query.get("sort", "featured") if request.query.get("sort", "featured") in SORTS else "featured"
    keys = {"featured": lambda p: (p["rank"],), "price-asc": lambda p: (p["price"], p["id"]),
            "price-desc": lambda p: (-p["price"], p["id"]), "rating": lambda p: (-p["rating"], -p["ratings"], p["id"]),
            "newest": lambda p: (-int(p["added"].replace("-", "")), p["id"])}
    items.sort(key=keys[sort])
    pages = max(1, -(-len(items) // PAGE_SIZE))
    page_no = int(request.query["page"]) if request.query.get("page", "").isdigit() else 1
    page_no = min(max(page_no, 1), pages)
    return {"cat": cat, "q": q, "brands": brands, "chosen": chosen, "min": request.query.get("min", ""),
            "max": request.query.get("max", ""), "rating": rating, "instock": instock, "sort": sort,
            "items": items, "page": page_no, "pages": pages, "error": low_error or high_error}


def listing_page(state: dict[str, Any], request: Request) -> Response:
    view = query_products(state, request)
    params = {"cat": view["cat"], "q": view["q"], "min": view["min"], "max": view["max"],
              "rating": view["rating"], "instock": "1" if view["instock"] else "",
              **{f"brand-{slug(b)}": "1" for b in view["chosen"]}}
    title = (f"Results for “{view['q']}”" if view["q"] else
             CATEGORIES[view["cat"]]["title"] if view["cat"] else "All products")
    shown = view["items"][(view["page"] - 1) * PAGE_SIZE:view["page"] * PAGE_SIZE]
    cards = "".join(
        f"<a class='product-card' href='{BASE}/product/{p['id']}' data-product='{p['id']}' "
        f"aria-label='{esc(p['name'])}, {money(p['price'])}, rated {p['rating']}'>{thumb(p)}"
        f"<span class='name'>{esc(p['name'])}</span><span class='muted'>{esc(p['brand'])}</span>"
        f"<span>{stars(p['rating'])} <span class='muted'>({p['ratings']})</span></span>"
        f"<span class='price'>{money(p['price'])}</span>"
        f"{'<span class=stock-note>Out of stock</span>' if p['stock'] == 0 else ''}</a>" for p in shown)
    sort_items = "".join(
        f"<li><a role='menuitem' data-sort='{key}' href='{url('/', **params, sort=key)}'>{label}</a></li>"
        for key, label in SORTS.items())
    pager = "".join(
        f"<span class='current' aria-current='page'>{n}</span>" if n == view["page"] else
        f"<a href='{url('/', **params, sort=view['sort'], page=n)}' aria-label='Page {n}'>{n}</a>"
        for n in range(1, view["pages"] + 1))
    if view["page"] < view["pages"]:
        pager += f"<a href='{url('/', **params, sort=view['sort'], page=view['page'] + 1)}' id='next-page'>Next ›</a>"
    body = (
        f"<div class='layout'><aside class='sidebar'>{_filters(view)}</aside><section class='content'>"
        f"<div class='results-head'><div><h1>{esc(title)}</h1><p id='result-count' class='muted'>"
        f"{len(view['items'])} product{'s' if len(view['items']) != 1 else ''}</p></div>"
        f"<div class='menu sort-menu'><button class='secondary' id='sort-button' aria-haspopup='menu' "
        f"aria-expanded='false'>Sort by: {SORTS[view['sort']]} ▾</button><ul role='menu' hidden>{sort_items}</ul></div>"
        f"</div>{error(view['error'])}"
        + (f"<div class='grid product-grid'>{cards}</div>" if cards else
           "<p class='empty'>No products match these filters. <a href='" + url('/', cat=view['cat'], q=view['q'])
           + "'>Clear filters</a></p>")
        + f"<nav class='pagination' aria-label='Pages'>{pager}</nav></section></div>")
    return shell(state, title, body, cat=view["cat"], q=view["q"], listing=True)


def _filters(view: dict[str, Any]) -> str:
    brands = "".join(
        f"<label class='check'><input type='checkbox' name='brand-{slug(b)}' value='1'"
        f"{' checked' if b in view['chosen'] else ''}> {esc(b)}</label>" for b in view["brands"])
    ratings = "".join(
        f"<label class='check'><input type='radio' name='rating' value='{key}'"
        f"{' checked' if key == view['rating'] else ''}> {label}</label>" for key, label in RATINGS.items())
    return (
        f"<form id='filters' action='{BASE}/' data-autosubmit>"
        f"<input type='hidden' name='cat' value='{esc(view['cat'])}'><input type='hidden' name='q' value='{esc(view['q'])}'>"
        f"<input type='hidden' name='sort' value='{view['sort']}'>"
        "<h3>Price</h3><div class='price-range'>"
        "<input id='min-price' name='min' inputmode='decimal' placeholder='Min $' aria-label='Minimum price' "
        f"value='{esc(view['min'])}'><input id='max-price' name='max' inputmode='decimal' placeholder='Max $' "
        f"aria-label='Maximum price' value='{esc(view['max'])}'>"
        "<button id='price-go' class='secondary'>Go</button></div>"
        f"<h3>Brand</h3>{brands}<h3>Rating</h3>{ratings}<h3>Availability</h3>"
        f"<label class='check'><input type='checkbox' id='instock' name='instock' value='1'"
        f"{' checked' if view['instock'] else ''}> In stock only</label>"
        f"<p><a href='{url('/', cat=view['cat'], q=view['q'])}' id='clear-filters'>Clear filters</a></p></form>")


def product_page(state: dict[str, Any], prod: dict[str, Any], *, message: str = "", problem: str = "",
                 chosen: dict[str, str] | None = None, status: int = 200) -> Response:
    chosen = chosen or {}
    colour = chosen.get("colour", prod["colours"][0] if prod["colours"] else "")
    colours = "".join(
        f"<label class='chip' data-colour='{esc(c)}'><input type='radio' name='colour' value='{esc(c)}'"
        f"{' checked' if c == colour else ''}> {esc(c)}</label>" for c in prod["colours"])
    sizes = "".join(
        f"<label class='chip' data-size='{esc(s)}'><input type='radio' name='size' value='{esc(s)}'"
        f"{' checked' if s == chosen.get('size') else ''}> {esc(s)}</label>" for s in prod["sizes"])
    qty = "".join(f"<option{' selected' if str(n) == chosen.get('qty') else ''}>{n}</option>"
                  for n in range(1, max(1, min(10, prod["stock"])) + 1))
    wished = prod["id"] in state["wishlist"]
    reviews = "".join(
        f"<li class='review'><div>{stars(r['stars'])} <b>{esc(r['author'])}</b> <span class='muted'>{r['date']}</span>"
        f"</div><p>{esc(r['text'])}</p></li>" for r in prod["reviews"])
    cat = CATEGORIES[prod["category"]]["title"]
    body = (
        f"<p class='breadcrumb'><a href='{BASE}/'>Home</a> › <a href='{url('/', cat=prod['category'])}'>{esc(cat)}</a></p>"
        f"{notice(message, markup=True)}<div class='product-main'>{thumb(prod)}<div class='product-info'>"
        f"<h1 id='product-name'>{esc(prod['name'])}</h1>"
        f"<p class='muted'>by <span id='product-brand'>{esc(prod['brand'])}</span></p>"
        f"<p>{stars(prod['rating'])} <span class='muted'>({prod['ratings']} ratings)</span></p>"
        f"<p class='price big' id='product-price'>{money(prod['price'])}</p><p id='product-stock'>{stock_text(prod)}</p>"
        f"<form method='post' action='{BASE}/cart/add' id='buy-form'>"
        f"<input type='hidden' name='product' value='{prod['id']}'>"
        + (f"<fieldset class='options'><legend>Colour</legend>{colours}</fieldset>" if colours else "")
        + (f"<fieldset class='options'><legend>Size</legend>{sizes}</fieldset>" if sizes else "")
        + f"{error(problem)}<div class='buy-row'>"
          f"<label for='qty'>Quantity</label> <select id='qty' name='qty'>{qty}</select>"
        + f"<button id='add-to-cart'{' disabled' if prod['stock'] == 0 else ''}>"
        + ("Out of stock" if prod["stock"] == 0 else "Add to cart") + "</button>"
        + (f"<a class='button secondary' href='{BASE}/wishlist' id='in-wishlist'>♥ In your wishlist</a>" if wished else
           f"<button class='secondary' id='add-to-wishlist' formaction='{BASE}/wishlist/add'>♡ Add to wishlist</button>")
        + "</div></form></div></div>"
        f"<h2>About this item</h2><p>{esc(prod['description'])}</p>"
        f"<table class='specs'><tr><th>Brand</th><td>{esc(prod['brand'])}</td></tr><tr><th>Category</th>"
        f"<td>{esc(cat)}</td></tr>"
        f"<tr><th>Colours</th><td>{esc(', '.join(prod['colours']) or '—')}</td></tr>"
        f"<tr><th>Sizes</th><td>{esc(', '.join(prod['sizes']) or '—')}</td></tr><tr><th>Added</th>"
        f"<td>{prod['added']}</td></tr></table>"
        f"<h2>Customer reviews</h2><ul class='reviews'>{reviews}</ul>")
    return shell(state, prod["name"], body, cat=prod["category"], status=status)


def wishlist_page(state: dict[str, Any], message: str = "") -> Response:
    rows = []
    for pid in state["wishlist"]:
        prod = product(state, pid)
        if prod["stock"] == 0:
            action = "<span class='stock out'>Out of stock</span>"
        elif prod["sizes"]:
            action = f"<a class='button secondary' href='{BASE}/product/{pid}'>Choose a size</a>"
        else:
            action = (f"<form method='post' action='{BASE}/cart/add'><input type='hidden' name='product' value='{pid}'>"
                      f"<input type='hidden' name='next' value='{BASE}/wishlist?added={pid}'>"
                      f"<button class='wish-add' data-product='{pid}' aria-label='Add {esc(prod['name'])} to cart'>"
                      "Add to cart</button></form>")
        rows.append(
            f"<li class='wish-row' data-product='{pid}'>{thumb(prod, small=True)}<div class='grow'>"
            f"<a href='{BASE}/product/{pid}'>{esc(prod['name'])}</a><div class='muted'>{money(prod['price'])} · "
            f"{stock_text(prod)}</div></div>{action}<form method='post' action='{BASE}/wishlist/remove'>"
            f"<input type='hidden' name='product' value='{pid}'><button class='secondary wish-remove' "
            f"aria-label='Remove {esc(prod['name'])} from wishlist'>Remove</button></form></li>")
    body = (f"<h1>Your wishlist</h1>{notice(message, markup=True)}"
            + (f"<ul class='rows'>{''.join(rows)}</ul>" if rows else "<p class='empty'>Your wishlist is empty.</p>"))
    return shell(state, "Wishlist", body)


def promo_description(code: dict[str, Any]) -> str:
    if code["kind"] == "percent":
        text = f"{code['value']}% off your whole order"
    elif code["kind"] == "amount":
        text = f"{money(code['value'])} off orders of {money(code['min'])} or more"
    elif code["kind"] == "category":
        text = f"{code['value']}% off everything in {CATEGORIES[code['category']]['title']}"
    else:
        text = "Free standard delivery on any order"
    return text


def deals_page(state: dict[str, Any]) -> Response:
    cards = "".join(
        f"<div class='card deal{' expired' if c['expired'] else ''}' data-code='{c['code']}'><code>{c['code']}</code>"
        f"<p>{esc(promo_description(c))}</p>"
        f"<p class='muted'>{'Expired' if c['expired'] else 'Enter it in your cart.'}</p></div>"
        for c in state["promos"])
    body = f"<h1>Deals &amp; promo codes</h1><p class='muted'>One code per order.</p><div class='grid'>{cards}</div>"
    return shell(state, "Deals", body)


def suggestions(state: dict[str, Any], q: str) -> list[dict[str, str]]:
    """Up to 8 products for the search box: names that start with the text first."""
    q = q.strip().lower()
    if not q:
        return []
    found = [p for p in state["products"] if matches_query(p, q)]
    found.sort(key=lambda p: (not p["name"].lower().startswith(q), p["name"]))
    return [{"label": p["name"], "href": f"{BASE}/product/{p['id']}"} for p in found[:8]]

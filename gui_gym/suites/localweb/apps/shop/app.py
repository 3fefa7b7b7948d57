"""`ShopApp`: the shop's routes and every change to its state.

Pages are GETs; every change is a form POST answered with a redirect (or the same page with
its validation errors and status 422), as a server-rendered shop does. Each successful change
is also appended to ``state["events"]``, the shop's own history, which milestones read so
that progress, once made, stays visible after later steps (a checkout empties the cart).
"""

from __future__ import annotations

import re
from typing import Any

from gui_gym.suites.localweb.apps.shop import views_browse, views_checkout
from gui_gym.suites.localweb.apps.shop.data import (CANCEL_REASONS, DELIVERY, PAYMENT, add_line, find_line,
                                                    initial_state, make_order, product, promo, promo_error)
from gui_gym.suites.localweb.apps.shop.views import BASE, STATIC, options_text
from gui_gym.suites.localweb.framework import Request, Response, Routes, WebApp, esc, json_response, not_found, redirect

TODAY = "2026-05-28"
"""The shop's calendar date: new orders carry it, so nothing depends on the machine's clock."""
STREET = re.compile(r"^\d+[A-Za-z]?\s+\S.*$")
POSTCODE = re.compile(r"^\d{5}$")
routes = Routes()


class ShopApp(WebApp):
    name = "shop"
    title = "LocalShop"
    static_dir = STATIC  # the folder its pages inline their assets from
    routes = routes

    def initial_state(self, seed: int) -> dict[str, Any]:
        return initial_state(seed)

    # ---- pages ----------------------------------------------------------------------------

    @routes("GET", "/")
    @routes("GET", "/home")
    def _get_home(self, request: Request, state: dict[str, Any]) -> Response:
        return views_browse.listing_page(state, request)

    @routes("GET", "/product/{product_id}")
    def _get_product(self, request: Request, state: dict[str, Any], product_id: str) -> Response:
        prod = product(state, product_id)
        if prod is None:
            return not_found("product")
        message = ""
        added = next((ln for ln in state["cart"] if str(ln["line"]) == request.query.get("added")), None)
        if added is not None:
            opts = options_text(added)
            message = (f"Added to your cart: {added['qty']} × {esc(added['name'])}{f' ({esc(opts)})' if opts else ''}. "
                       f"<a href='{BASE}/cart'>View cart</a>")
        elif request.query.get("wished"):
            message = f"Saved to your wishlist. <a href='{BASE}/wishlist'>View wishlist</a>"
        return views_browse.product_page(state, prod, message=message)

    @routes("GET", "/wishlist")
    def _get_wishlist(self, request: Request, state: dict[str, Any]) -> Response:
        added = product(state, request.query.get("added", ""))
        return views_browse.wishlist_page(state, f"Added {esc(added['name'])} to your cart." if added else "")

    @routes("GET", "/deals")
    def _get_deals(self, request: Request, state: dict[str, Any]) -> Response:
        return views_browse.deals_page(state)

    @routes("GET", "/api/{endpoint}")
    def _get_api(self, request: Request, state: dict[str, Any], endpoint: str) -> Response:
        if endpoint == "suggest":
            return json_response(views_browse.suggestions(state, request.query.get("q", "")))
        return json_response({"error": f"no API endpoint {request.path!r}"}, 404)

    @routes("GET", "/cart")
    def _get_cart(self, request: Request, state: dict[str, Any]) -> Response:
        order = request.query.get("reordered", "")
        message = f"Items from order {esc(order)} were added to your cart." if order else ""
        return views_checkout.cart_page(state, message=message)

    @routes("GET", "/checkout")
    @routes("GET", "/checkout/{step}")
    def _get_checkout(self, request: Request, state: dict[str, Any], step: str = "shipping") -> Response:
        if not state["cart"]:
            return redirect(f"{BASE}/cart")
        co = state["checkout"]
        missing = ("shipping" if co["address"] is None else "delivery" if co["delivery"] is None
                   else "payment" if co["payment"] is None else None)
        steps = views_checkout.STEPS
        if step not in steps:
            return not_found("checkout step")
        if missing is not None and steps.index(step) > steps.index(missing):
            return redirect(f"{BASE}/checkout/{missing}")
        pages = {"shipping": views_checkout.shipping_page, "delivery": views_checkout.delivery_page,
                 "payment": views_checkout.payment_page, "review": views_checkout.review_page}
        return pages[step](state)

    @routes("GET", "/orders")
    def _get_orders(self, request: Request, state: dict[str, Any]) -> Response:
        return views_checkout.orders_page(state, request.query.get("page", ""))

    @routes("GET", "/orders/{number}")
    def _get_order(self, request: Request, state: dict[str, Any], number: str) -> Response:
        order = _order(state, number)
        if order is None:
            return not_found("order")
        message = f"Thank you! Your order {order['number']} has been placed." if request.query.get("placed") else ""
        return views_checkout.order_page(state, order, message=message)

    # ---- changes --------------------------------------------------------------------------

    @routes("POST", "/cart/promo/remove")
    def _post_remove_promo(self, request: Request, state: dict[str, Any]) -> Response:
        state["promo"] = None
        return redirect(f"{BASE}/cart")

    @routes("POST", "/cart/{action}")
    def _post_cart(self, request: Request, state: dict[str, Any], action: str) -> Response:
        if action == "add":
            return self._add_to_cart(request, state)
        if action == "promo":
            typed = request.arg("code")
            problem = promo_error(promo(state, typed), typed, state["cart"])
            if problem:
                return views_checkout.cart_page(state, promo_problem=problem, typed_code=typed, status=422)
            state["promo"] = promo(state, typed)["code"]
            _event(state, "promo", code=state["promo"])
            return redirect(f"{BASE}/cart")
        line = next((ln for ln in state["cart"] if str(ln["line"]) == request.arg("line")), None)
        if line is None or action not in ("update", "remove"):
            return views_checkout.cart_page(state, problem="That item is no longer in your cart.", status=422)
        if action == "remove":
            state["cart"].remove(line)
            _event(state, "cart_remove", product=line["product"], colour=line["colour"], size=line["size"])
            return redirect(f"{BASE}/cart")
        raw = request.arg("qty").strip()
        limit = min(10, product(state, line["product"])["stock"])
        if not raw.isdigit() or not 1 <= int(raw) <= limit:
            return views_checkout.cart_page(
                state, problem=f"Quantity of {line['name']} must be a whole number from 1 to {limit}.", status=422)
        line["qty"] = int(raw)
        _event(state, "cart_update", product=line["product"], colour=line["colour"], size=line["size"], qty=line["qty"])
        return redirect(f"{BASE}/cart")

    def _add_to_cart(self, request: Request, state: dict[str, Any]) -> Response:
        prod = product(state, request.arg("product"))
        if prod is None:
            return not_found("product")
        chosen = {"colour": request.arg("colour"), "size": request.arg("size"), "qty": request.arg("qty", "1")}
        if not chosen["colour"] and prod["colours"]:
            chosen["colour"] = prod["colours"][0]
        existing = find_line(state, prod["id"], chosen["colour"] or None, chosen["size"] or None)
        qty = int(chosen["qty"]) if chosen["qty"].isdigit() else 0
        total = qty + (existing["qty"] if existing else 0)
        problem = ("This item is out of stock." if prod["stock"] == 0
                   else "Please choose a size." if prod["sizes"] and chosen["size"] not in prod["sizes"]
                   else f"Choose a colour from {', '.join(prod['colours'])}."
                   if prod["colours"] and chosen["colour"] not in prod["colours"]
                   else "Choose a quantity of at least 1." if qty < 1
                   else f"Only {prod['stock']} left in stock." if total > prod["stock"]
                   else "You can buy at most 10 of an item." if total > 10 else "")
        if problem:
            return views_browse.product_page(state, prod, problem=problem, chosen=chosen, status=422)
        line = add_line(state, prod, chosen["colour"] or None, chosen["size"] or None, qty)
        _event(state, "cart_add", product=prod["id"], colour=line["colour"], size=line["size"], qty=qty)
        target = request.arg("next")
        return redirect(target if target.startswith(f"{BASE}/") else f"{BASE}/product/{prod['id']}?added={line['line']}")

    @routes("POST", "/wishlist/{action}")
    def _post_wishlist(self, request: Request, state: dict[str, Any], action: str) -> Response:
        prod = product(state, request.arg("product"))
        if prod is None or action not in ("add", "remove"):
            return not_found("product")
        if action == "add":
            if prod["id"] not in state["wishlist"]:
                state["wishlist"].append(prod["id"])
                _event(state, "wishlist_add", product=prod["id"])
            return redirect(f"{BASE}/product/{prod['id']}?wished=1")
        if prod["id"] in state["wishlist"]:
            state["wishlist"].remove(prod["id"])
            _event(state, "wishlist_remove", product=prod["id"])
        return redirect(f"{BASE}/wishlist")

    @routes("POST", "/checkout/{step}")
    def _post_checkout(self, request: Request, state: dict[str, Any], step: str) -> Response:
        if not state["cart"]:
            return redirect(f"{BASE}/cart")
        co = state["checkout"]
        if step == "shipping":
            return self._set_address(request, state)
        if step == "delivery":
            if request.arg("delivery") not in DELIVERY:
                return views_checkout.delivery_page(state, "Choose a delivery option.", status=422)
            co["delivery"] = request.arg("delivery")
            _event(state, "delivery", option=co["delivery"])
            return redirect(f"{BASE}/checkout/payment")
        if step == "payment":
            co["payment"] = request.arg("payment") if request.arg("payment") in PAYMENT else "card"
            _event(state, "payment", method=co["payment"])
            return redirect(f"{BASE}/checkout/review")
        if step == "place":
            if None in co.values():
                return redirect(f"{BASE}/checkout/shipping")
            number = f"LW-{state['next_order']}"
            state["next_order"] += 1
            code = promo(state, state["promo"]) if state["promo"] else None
            state["orders"].insert(0, make_order(number, TODAY, state["cart"], co["address"], co["delivery"],
                                                 co["payment"], code, state))
            state["cart"], state["promo"] = [], None
            state["checkout"] = {"address": None, "delivery": None, "payment": None}
            _event(state, "order", number=number)
            return redirect(f"{BASE}/orders/{number}?placed=1")
        return not_found("checkout step")

    def _set_address(self, request: Request, state: dict[str, Any]) -> Response:
        choice = request.arg("address")
        saved = {a["label"].lower(): a for a in state["account"]["addresses"]}
        if choice in saved:
            address = dict(saved[choice])
        elif choice == "new":
            values = {key: request.arg(key).strip() for key in views_checkout.ADDRESS_FIELDS}
            problems = {key: f"Enter the {label.lower()}." for key, label in views_checkout.ADDRESS_FIELDS.items()
                        if not values[key]}
            if values["street"] and not STREET.match(values["street"]):
                problems["street"] = "Start the street address with a house number, e.g. 12 Elm Street."
            if values["postcode"] and not POSTCODE.match(values["postcode"]):
                problems["postcode"] = "A postcode is exactly 5 digits."
            if problems:
                return views_checkout.shipping_page(state, choice="new", values=values, problems=problems, status=422)
            address = {"label": "New", **values}
        else:
            return views_checkout.shipping_page(state, problems={"address": "Choose where to ship."}, status=422)
        state["checkout"]["address"] = address
        _event(state, "address", **address)
        return redirect(f"{BASE}/checkout/delivery")

    @routes("POST", "/orders/{number}/{action}")
    def _post_orders(self, request: Request, state: dict[str, Any], number: str, action: str) -> Response:
        order = _order(state, number)
        if order is None:
            return not_found("order")
        if action == "reorder":
            for old in order["lines"]:
                prod = product(state, old["product"])
                existing = find_line(state, old["product"], old["colour"], old["size"])
                room = min(10, prod["stock"]) - (existing["qty"] if existing else 0)
                if room > 0:
                    add_line(state, prod, old["colour"], old["size"], min(old["qty"], room))
            _event(state, "reorder", number=order["number"])
            return redirect(f"{BASE}/cart?reordered={order['number']}")
        if action == "cancel" and order["status"] == "Processing":
            reason = request.arg("reason")
            if reason not in CANCEL_REASONS:
                return views_checkout.order_page(state, order, problem="Choose a reason to cancel the order.", status=422)
            order["status"], order["cancel_reason"] = "Cancelled", reason
            _event(state, "cancel", number=order["number"], reason=reason)
            return redirect(f"{BASE}/orders/{order['number']}")
        return not_found("order action")


def _order(state: dict[str, Any], number: str) -> dict[str, Any] | None:
    return next((o for o in state["orders"] if o["number"] == number), None)


def _event(state: dict[str, Any], kind: str, **data: Any) -> None:
    state["events"].append({"type": kind, **data})

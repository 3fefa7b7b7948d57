"""LocalShop: a small online shop (catalogue with search, filters, sort and pagination,
product options, cart with promo codes, a four-step checkout, order history) and its tasks."""

from __future__ import annotations

from gui_gym.suites.localweb.apps.shop.app import ShopApp
from gui_gym.suites.localweb.apps.shop.tasks_easy import AddToCart, AddToWishlist, ProductInfo, RemoveFromCart
from gui_gym.suites.localweb.apps.shop.tasks_hard import (BestRatedUnderBudget, CheckoutNewAddress, ReorderWithChange,
                                                          WishlistCheckout)
from gui_gym.suites.localweb.apps.shop.tasks_medium import (BestPromo, CancelOrder, CheapestInCategory, FilterCount,
                                                            VariantQuantity)

APP = ShopApp()
TEMPLATES = [AddToCart, ProductInfo, AddToWishlist, RemoveFromCart, CheapestInCategory, VariantQuantity, FilterCount,
             BestPromo, CancelOrder, CheckoutNewAddress, ReorderWithChange, BestRatedUnderBudget, WishlistCheckout]
"""Easy, medium, hard: the order `load_apps` lists them in."""

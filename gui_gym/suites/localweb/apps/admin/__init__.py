"""The settings / admin console app: an organisation's members, security, notifications,
billing, API keys and audit log, with the task templates that use them."""

from __future__ import annotations

from gui_gym.suites.localweb.apps.admin.app import AdminApp
from gui_gym.suites.localweb.apps.admin.tasks_easy import InvoiceAmount, RevokeKey, SecurityToggle, UserRole
from gui_gym.suites.localweb.apps.admin.tasks_hard import AccessReshuffle, AuditInvestigation, StaleTeamCleanup
from gui_gym.suites.localweb.apps.admin.tasks_medium import CreateApiKey, InviteUser, NotificationPolicy, OrgProfile

APP = AdminApp()
TEMPLATES = [SecurityToggle, UserRole, RevokeKey, InvoiceAmount, InviteUser, OrgProfile, NotificationPolicy,
             CreateApiKey, StaleTeamCleanup, AuditInvestigation, AccessReshuffle]
"""Easy, medium, hard: the order `load_apps` lists them in."""

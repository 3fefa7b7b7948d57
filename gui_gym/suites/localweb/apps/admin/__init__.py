"""The settings / admin console app: an organisation's members, security, notifications,
billing, API keys and audit log, with the task templates that use them."""

from gui_gym.suites.localweb.apps.admin.app import AdminApp
from gui_gym.suites.localweb.apps.admin.flows import AccessReshuffle, AuditInvestigation, StaleTeamCleanup
from gui_gym.suites.localweb.apps.admin.tasks import (
    CreateApiKey, InviteUser, InvoiceAmount, NotificationPolicy, OrgProfile, RevokeKey, SecurityToggle, UserRole)

APP = AdminApp()
TEMPLATES = [SecurityToggle, UserRole, RevokeKey, InvoiceAmount, InviteUser, OrgProfile, NotificationPolicy,
             CreateApiKey, StaleTeamCleanup, AuditInvestigation, AccessReshuffle]

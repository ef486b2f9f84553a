"""The leads family: lead lists, one lead, adding one and uploading many."""

from __future__ import annotations

from commands.kernel.actions import APPROVAL, ActionSpec
from commands.kernel.catalog import CommandSpec
from commands.kernel.family import Family
from commands.kernel.forms import Form
from commands.kernel.i18n import N_
from commands.kernel.interactions import OnClick, OnStep
from commands.leads import insert, lead_card, lead_links, lists, steps, upload
from storage import Role

FAMILY = Family(
    "leads",
    commands=(
        CommandSpec(
            "lead",
            "khach-hang",
            N_("lead <lead_uuid> | lead <campaign|list_uuid> <phone> [key=value ...]"),
            N_(
                "Open a lead by its UUID, or insert one into a campaign's list (or a list by "
                "UUID); no phone opens a form."
            ),
            Role.VIEWER,
            ('lead "Telesale thẻ tín dụng HCM" 0912345678 lead_name=An', "lead 0b6c…-… 0912345678"),
            handler=lead_card.lead_command,
        ),
        CommandSpec(
            "leads upload",
            "khach-hang tai-len",
            N_("leads upload <campaign|list_uuid>"),
            N_("Check the CSV you shared here and upload it to a campaign's list (or a list)."),
            Role.OPERATOR,
            ('leads upload "Telesale thẻ tín dụng HCM"',),
            handler=upload.upload,
        ),
        CommandSpec(
            "list",
            "danh-sach-khach-hang",
            N_("list <list_uuid>"),
            N_("A lead list's totals."),
            Role.VIEWER,
            ("list 3f1c9a52-7d4e-4b8a-9c21-5e6f7a8b9c0d",),
            handler=lists.show_list,
        ),
    ),
    actions=(
        ActionSpec(
            kind=insert.INSERT_KIND,
            policy=APPROVAL,
            title=N_("Add a lead"),
            confirm_label=N_("Add the lead"),
            params=insert.LeadParams,
            describe=insert.describe_lead,
            execute=insert.execute_lead,
            unknown_outcome=N_("the lead may or may not have been added"),
            follow_ups=insert.lead_follow_ups,
        ),
        ActionSpec(
            kind=upload.UPLOAD_KIND,
            policy=APPROVAL,
            title=N_("Upload leads"),
            confirm_label=N_("Upload the leads"),
            params=upload.UploadParams,
            describe=upload.describe_upload,
            execute=upload.execute_upload,
            unknown_outcome=N_("the leads may or may not have been uploaded"),
        ),
    ),
    forms=(Form(insert.LEAD_CALLBACK, insert.check_form, insert.build_form),),
    clicks=(
        OnClick(lists.OPEN_LIST_BUTTON, lists.open_list_clicked),
        OnClick(lead_links.OPEN_LEAD_BUTTON, lead_card.open_lead_clicked),
        OnClick(insert.ADD_LEAD_BUTTON, insert.add_lead_clicked, role=insert.ADD_LEAD_ROLE),
        OnClick(upload.UPLOAD_LEADS_BUTTON, upload.upload_clicked, role=upload.UPLOAD_LEADS_ROLE),
    ),
    steps=(
        OnStep(
            steps.LEAD_STEP,
            steps.add_lead,
            N_("Add a lead"),
            "Add one customer to a callops lead list, for the dialer to call.",
            steps.INPUTS,
            steps.OUTPUTS,
            role=Role.OPERATOR,
        ),
    ),
)

"""The leads family: lead lists, one lead, adding one and uploading many."""

from __future__ import annotations

from commands.kernel.family import Family
from commands.kernel.interactions import OnClick, OnStep
from commands.leads import insert, lead_card, lead_links, lists, steps, upload
from storage import Role

FAMILY = Family(
    "leads",
    commands={
        "list": lists.show_list,
        "lead": lead_card.lead_command,
        "leads upload": upload.upload,
    },
    actions=(insert.LEAD_ACTION, upload.UPLOAD_ACTION),
    forms=(insert.LEAD_FORM,),
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
            "Add a lead",
            "Add one customer to a callops lead list, for the dialer to call.",
            steps.INPUTS,
            steps.OUTPUTS,
            role=Role.OPERATOR,
        ),
    ),
)

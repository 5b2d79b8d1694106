"""Demo gateway hook: refuse /reset from anyone but the owner."""

OWNER = "42"


async def handle(event_type, context):
    if event_type == "command:reset" and context.get("user_id") != OWNER:
        return {"decision": "deny", "message": "Only the owner may reset this chat."}
    return None

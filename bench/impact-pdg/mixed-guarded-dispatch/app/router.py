"""Router: control + data dependence into two of three handlers."""

from app.handlers import handle_noop, handle_refund, handle_sale


def dispatch(amount: int, is_refund: bool) -> int:
    bonus = amount // 10
    if is_refund:
        result = handle_refund(amount)
    elif amount > 100:
        result = handle_sale(amount, bonus)
    else:
        result = handle_noop()
    return result

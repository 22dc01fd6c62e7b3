"""The texts of the e-mail the service sends (mail.py puts them together), in the web
client's four languages and its words and tone (service/web/ui/i18n/: "you" in English,
"vous" in French, "du" in German; a "game" is a "partie", a "Partie", a "对局"; the turn
clock is the "temps de jeu", the "Zugzeit", the "回合计时").

As in the client's catalogues, every text is a template with named placeholders, so a
translation may reorder them, and no sentence is built by pasting pieces together. The
texts avoid plural forms (a count after a colon, durations in abbreviated units), which
the four languages make differently. Each language keeps its own punctuation
(typographic apostrophes, full-width colons and commas), which ruff's RUF001 would take
for look-alikes of ASCII: hence the file's exemption.
"""

# ruff: noqa: RUF001

from __future__ import annotations

LANGUAGES = ("en", "fr", "de", "zh")

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "code_subject": "Your Yokai Septet code: {code}",
        "code_intro": "Enter this code in Yokai Septet to confirm your e-mail address:",
        "code_valid": "It works for {minutes} minutes.",
        "code_ignore": "If you did not ask for it, ignore this message: "
        "nothing will be sent to this address.",
        "reminder_subject": "Your turn in Yokai Septet: {time} left",
        "reminder_text": "It is your turn in game {game}, and your turn clock has {time} left.",
        "open_game": "Open the game",
        "digest_subject": "Games waiting for you in Yokai Septet: {count}",
        "digest_intro.hourly": "Your hourly digest: these games are waiting for you to play.",
        "digest_intro.daily": "Your daily digest: these games are waiting for you to play.",
        "digest_game": "Game {game}, waiting for {time}",
        "digest_game_with": "Game {game} with {players}, waiting for {time}",
        "footer_why": "You get this e-mail because you turned on e-mail notifications "
        "in Yokai Septet.",
        "footer_stop": "To stop them, use the Unsubscribe button of your mail program, "
        "or turn e-mail off in your settings: {url}",
        "separator": ", ",
        "minutes": "{m} min",
        "hours": "{h} h",
        "hours_minutes": "{h} h {m} min",
        "days": "{d} d",
        "days_hours": "{d} d {h} h",
    },
    "fr": {
        "code_subject": "Votre code Yokai Septet : {code}",
        "code_intro": "Saisissez ce code dans Yokai Septet pour confirmer votre adresse e-mail :",
        "code_valid": "Il est valable {minutes} minutes.",
        "code_ignore": "Si vous ne l’avez pas demandé, ignorez ce message : "
        "rien ne sera envoyé à cette adresse.",
        "reminder_subject": "À vous de jouer dans Yokai Septet : il reste {time}",
        "reminder_text": "C’est à vous de jouer dans la partie {game}, "
        "et votre temps de jeu s’écoule dans {time}.",
        "open_game": "Ouvrir la partie",
        "digest_subject": "Parties qui vous attendent dans Yokai Septet : {count}",
        "digest_intro.hourly": "Votre récapitulatif horaire : ces parties attendent que vous "
        "jouiez.",
        "digest_intro.daily": "Votre récapitulatif quotidien : ces parties attendent que vous "
        "jouiez.",
        "digest_game": "Partie {game}, en attente depuis {time}",
        "digest_game_with": "Partie {game} avec {players}, en attente depuis {time}",
        "footer_why": "Vous recevez cet e-mail car vous avez activé les notifications par "
        "e-mail dans Yokai Septet.",
        "footer_stop": "Pour ne plus en recevoir, utilisez le bouton « Se désabonner » de "
        "votre messagerie, ou désactivez l’e-mail dans vos réglages : {url}",
        "separator": ", ",
        "minutes": "{m} min",
        "hours": "{h} h",
        "hours_minutes": "{h} h {m} min",
        "days": "{d} j",
        "days_hours": "{d} j {h} h",
    },
    "de": {
        "code_subject": "Dein Code für Yokai Septet: {code}",
        "code_intro": "Gib diesen Code in Yokai Septet ein, um deine E-Mail-Adresse zu bestätigen:",
        "code_valid": "Er gilt {minutes} Minuten.",
        "code_ignore": "Wenn du ihn nicht angefordert hast, ignoriere diese Nachricht: "
        "An diese Adresse wird nichts gesendet.",
        "reminder_subject": "Du bist dran in Yokai Septet: noch {time}",
        "reminder_text": "Du bist in Partie {game} am Zug, und deine Zugzeit läuft in {time} ab.",
        "open_game": "Partie öffnen",
        "digest_subject": "Partien, die in Yokai Septet auf dich warten: {count}",
        "digest_intro.hourly": "Deine stündliche Übersicht: Diese Partien warten auf deinen Zug.",
        "digest_intro.daily": "Deine tägliche Übersicht: Diese Partien warten auf deinen Zug.",
        "digest_game": "Partie {game}, wartet seit {time}",
        "digest_game_with": "Partie {game} mit {players}, wartet seit {time}",
        "footer_why": "Du bekommst diese E-Mail, weil du E-Mail-Benachrichtigungen in "
        "Yokai Septet eingeschaltet hast.",
        "footer_stop": "Um keine mehr zu bekommen, nutze die Abmelden-Schaltfläche deines "
        "Mailprogramms oder schalte E-Mails in deinen Einstellungen aus: {url}",
        "separator": ", ",
        "minutes": "{m} Min.",
        "hours": "{h} Std.",
        "hours_minutes": "{h} Std. {m} Min.",
        "days": "{d} Tg.",
        "days_hours": "{d} Tg. {h} Std.",
    },
    "zh": {
        "code_subject": "你的 Yokai Septet 验证码：{code}",
        "code_intro": "请在 Yokai Septet 中输入此验证码，确认你的电子邮件地址：",
        "code_valid": "验证码 {minutes} 分钟内有效。",
        "code_ignore": "如果这不是你本人的请求，请忽略此邮件：我们不会向此地址发送任何邮件。",
        "reminder_subject": "Yokai Septet 轮到你了：还剩 {time}",
        "reminder_text": "对局 {game} 轮到你了，你的回合计时还剩 {time}。",
        "open_game": "打开对局",
        "digest_subject": "Yokai Septet 中等你行动的对局：{count}",
        "digest_intro.hourly": "每小时摘要：以下对局正在等你行动。",
        "digest_intro.daily": "每日摘要：以下对局正在等你行动。",
        "digest_game": "对局 {game}，已等待 {time}",
        "digest_game_with": "对局 {game}（与 {players}），已等待 {time}",
        "footer_why": "你收到此邮件，是因为你在 Yokai Septet 中开启了邮件通知。",
        "footer_stop": "如不想再收到，请使用邮件程序的“退订”按钮，或在设置中关闭邮件通知：{url}",
        "separator": "、",
        "minutes": "{m} 分钟",
        "hours": "{h} 小时",
        "hours_minutes": "{h} 小时 {m} 分钟",
        "days": "{d} 天",
        "days_hours": "{d} 天 {h} 小时",
    },
}


def language(lang: str | None) -> str:
    """The language of ours for a tag ("fr", "fr-CA", "ZH-Hans"): its first part if we
    have it, else English."""
    base = (lang or "").strip().lower().replace("_", "-").split("-")[0]
    return base if base in TEXTS else "en"


def duration(texts: dict[str, str], minutes: int) -> str:
    """A duration in whole minutes, in abbreviated units: minutes under an hour, hours
    and minutes under a day, days and hours beyond."""
    if minutes < 60:
        return texts["minutes"].format(m=minutes)
    if minutes < 24 * 60:
        hours, rest = divmod(minutes, 60)
        if rest:
            return texts["hours_minutes"].format(h=hours, m=rest)
        return texts["hours"].format(h=hours)
    days, rest = divmod(minutes // 60, 24)
    if rest:
        return texts["days_hours"].format(d=days, h=rest)
    return texts["days"].format(d=days)

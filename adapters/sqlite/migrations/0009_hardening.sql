-- Hardening rules (API-DECISIONS 12) applied to data written before them.
-- A system-admin role is never the default role: otherwise every user
-- created later would be an administrator.
UPDATE roles SET is_default_role = 0 WHERE is_system_admin = 1;

-- URL fields hold only absolute http(s) URLs or nothing; a stored
-- javascript: or data: URL is emptied rather than served to clients.
UPDATE users SET profile_picture_url = ''
	WHERE profile_picture_url <> ''
	AND lower(substr(profile_picture_url, 1, 7)) <> 'http://'
	AND lower(substr(profile_picture_url, 1, 8)) <> 'https://';
UPDATE offices SET website = ''
	WHERE website <> ''
	AND lower(substr(website, 1, 7)) <> 'http://'
	AND lower(substr(website, 1, 8)) <> 'https://';
